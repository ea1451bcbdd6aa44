import pino from 'pino';
import { stopInOrder, withDeadline } from './bounded-stop';

const never = () => new Promise<void>(() => undefined);

describe('withDeadline', () => {
  it('answers with the work when it finishes in time', async () => {
    await expect(withDeadline(Promise.resolve(7), 1000)).resolves.toBe(7);
  });

  it('answers "overran" when the work does not finish in time', async () => {
    await expect(withDeadline(never(), 20)).resolves.toBe('overran');
  });
});

describe('stopInOrder', () => {
  const lines: string[] = [];
  const logger = pino({ level: 'debug' }, { write: (line: string) => void lines.push(line) });

  beforeEach(() => lines.splice(0));

  it('stops every part in order, going on past one that hangs, within its bound', async () => {
    const order: string[] = [];
    const started = Date.now();
    await stopInOrder(
      logger,
      [
        { name: 'edge', stop: async () => void order.push('edge') },
        { name: 'consumer', stop: never },
        { name: 'postgres', stop: async () => void order.push('postgres') },
      ],
      50,
    );
    expect(order).toEqual(['edge', 'postgres']);
    expect(Date.now() - started).toBeLessThan(1000);
    expect(lines.join('')).toContain('consumer did not stop within 50 ms; going on without it');
  });

  it('stops the rest after a failure, then reports the first failure', async () => {
    const order: string[] = [];
    const steps = [
      { name: 'a', stop: () => Promise.reject(new Error('a broke')) },
      { name: 'b', stop: () => Promise.reject(new Error('b broke')) },
      { name: 'c', stop: async () => void order.push('c') },
    ];
    await expect(stopInOrder(logger, steps, 50)).rejects.toThrow('a broke');
    expect(order).toEqual(['c']);
  });

  it('gives a step its own bound when it names one', async () => {
    const slow = () => new Promise<void>((resolve) => setTimeout(resolve, 80));
    await stopInOrder(logger, [{ name: 'postgres', stop: slow, ms: 500 }], 20);
    expect(lines.join('')).not.toContain('did not stop');
  });
});
