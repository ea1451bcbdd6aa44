import { SseParser, type SseEvent } from './sse.parser';

function parse(chunks: string[]): { events: SseEvent[]; retries: number[] } {
  const events: SseEvent[] = [];
  const retries: number[] = [];
  const parser = new SseParser({ onEvent: (e) => events.push(e), onRetry: (ms) => retries.push(ms) });
  for (const chunk of chunks) parser.push(chunk);
  return { events, retries };
}

const STREAM = 'id: s|1\nretry: 500\ndata: \n\n: keepalive\n\nevent: message\nid: s|2\ndata: {"jsonrpc":"2.0","id":1,"result":{}}\n\n';

describe('SseParser', () => {
  it('reads a priming event, skips keep-alives and hands over each message with its id', () => {
    const { events, retries } = parse([STREAM]);
    expect(events).toEqual([
      { event: 'message', data: '', id: 's|1' },
      { event: 'message', data: '{"jsonrpc":"2.0","id":1,"result":{}}', id: 's|2' },
    ]);
    expect(retries).toEqual([500]);
  });

  it('gives the same events whatever the chunking, including a CRLF split between chunks', () => {
    const crlf = STREAM.replace(/\n/g, '\r\n');
    const whole = parse([crlf]).events;
    for (let cut = 1; cut < crlf.length; cut += 1) {
      expect(parse([crlf.slice(0, cut), crlf.slice(cut)]).events).toEqual(whole);
    }
    expect(parse(STREAM.split('')).events).toEqual(parse([STREAM]).events);
  });

  it('joins multi-line data with newlines and keeps the last id for later events', () => {
    const { events } = parse(['id: 7\ndata: a\ndata: b\n\ndata:c\n\n']);
    expect(events).toEqual([
      { event: 'message', data: 'a\nb', id: '7' },
      { event: 'message', data: 'c', id: '7' },
    ]);
  });
});

describe('SseParser limits', () => {
  it('gives up on an event that grows past the limit, without keeping it, and reports it once', () => {
    const events: SseEvent[] = [];
    const overflows: number[] = [];
    const parser = new SseParser({ onEvent: (e) => events.push(e), onOverflow: (n) => overflows.push(n) }, 100);
    parser.push('data: small\n\n');
    for (let i = 0; i < 50; i += 1) parser.push(`data: ${'x'.repeat(30)}\n`);
    parser.push('\n');
    expect(events).toEqual([{ event: 'message', data: 'small', id: undefined }]);
    expect(overflows).toHaveLength(1);
    expect(overflows[0]).toBeGreaterThan(100);
  });

  it('counts an unterminated line against the limit too', () => {
    const overflows: number[] = [];
    const parser = new SseParser({ onEvent: () => undefined, onOverflow: (n) => overflows.push(n) }, 100);
    for (let i = 0; i < 10; i += 1) parser.push('y'.repeat(20));
    expect(overflows).toEqual([120]);
  });
});
