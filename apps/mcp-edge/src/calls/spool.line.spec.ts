import { messageOfLine, spoolLine } from './spool.line';

const ENVELOPE = JSON.stringify({ id: 'e-1', type: 'ToolCallCompleted', data: { tool: 'bank.lookup', detail: 'quote " and \\ and é\n' } });

describe('spool line', () => {
  it('gives back the very message it was made from: the envelope byte for byte', () => {
    const message = { key: 'agent "a"', value: ENVELOPE, headers: { 'estate-type': 'ToolCallCompleted', traceparent: '00-abc-def-01' } };
    const line = spoolLine(message);
    expect(line).not.toContain('\n');
    expect(messageOfLine(line)).toEqual(message);
    expect(messageOfLine(spoolLine({ key: 'k', value: ENVELOPE }))).toEqual({ key: 'k', value: ENVELOPE });
  });

  it('splices the envelope in instead of encoding it again as a string', () => {
    expect(spoolLine({ key: 'k', value: ENVELOPE })).toBe(`{"key":"k","envelope":${ENVELOPE}}`);
  });

  it('reads a line written the old way, the message JSON-encoded whole', () => {
    const message = { key: 'k', value: ENVELOPE, headers: { 'estate-type': 'ToolCallRefused' } };
    expect(messageOfLine(JSON.stringify(message))).toEqual(message);
  });

  it('refuses a line that is not JSON or has no key', () => {
    expect(() => messageOfLine('{"key":"k","envelope":{"id":')).toThrow(SyntaxError);
    expect(() => messageOfLine('{"envelope":{}}')).toThrow('no key');
  });
});
