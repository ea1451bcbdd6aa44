import { ParkedCalls } from './parked-calls.registry';

describe('calls parked for an agent', () => {
  afterEach(() => jest.useRealTimers());

  it('hands a parked call only to its own principal, and only once', () => {
    let n = 0;
    const parked = new ParkedCalls<string>(60_000, () => undefined, () => `id-${(n += 1)}`);
    const id = parked.park({ principal: 'alice', exchange: 'call-a' });
    expect(parked.peek(id, 'bob')).toBeUndefined();
    expect(parked.take(id, 'bob')).toBeUndefined();
    expect(parked.peek(id, 'alice')).toEqual({ principal: 'alice', exchange: 'call-a' });
    expect(parked.take(id, 'alice')).toEqual({ principal: 'alice', exchange: 'call-a' });
    expect(parked.take(id, 'alice')).toBeUndefined();
    expect(parked.size).toBe(0);
  });

  it('expires a call nobody came back for, and tells who withdraws its questions', () => {
    jest.useFakeTimers();
    const expired: string[] = [];
    const parked = new ParkedCalls<string>(1000, (call) => expired.push(call.exchange));
    const id = parked.park({ principal: 'alice', exchange: 'call-a' });
    const taken = parked.park({ principal: 'alice', exchange: 'call-b' });
    parked.take(taken, 'alice');
    jest.advanceTimersByTime(999);
    expect(expired).toEqual([]);
    jest.advanceTimersByTime(1);
    expect(expired).toEqual(['call-a']);
    expect(parked.take(id, 'alice')).toBeUndefined();
  });

  it('expires everything at once when the edge stops', () => {
    const expired: string[] = [];
    const parked = new ParkedCalls<string>(60_000, (call) => expired.push(call.exchange));
    parked.park({ principal: 'alice', exchange: 'a' });
    parked.park({ principal: 'bob', exchange: 'b' });
    parked.closeAll();
    expect(expired.sort()).toEqual(['a', 'b']);
    expect(parked.size).toBe(0);
  });
});
