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
