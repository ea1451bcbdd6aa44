import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { RESPONSE_TOO_LARGE_CODE } from './http-client.transport';
import { BoundedStdioTransport } from './stdio-client.transport';

const LIMIT = 10_000;

/** A real child process: answers `ping`, and answers `flood` with one 5 MB line that never ends, then stays alive. */
const CHILD = `
  let pending = '';
  process.stdin.on('data', (chunk) => {
    pending += chunk;
    for (let nl = pending.indexOf('\\n'); nl !== -1; nl = pending.indexOf('\\n')) {
      const request = JSON.parse(pending.slice(0, nl));
      pending = pending.slice(nl + 1);
      if (request.method === 'ping') process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: request.id, result: {} }) + '\\n');
      if (request.method === 'flood') process.stdout.write('{"jsonrpc":"2.0","id":' + request.id + ',"result":{"text":"' + 'x'.repeat(5000000));
    }
  });
  setInterval(() => undefined, 1000);
`;

describe('a stdio upstream is read one bounded line at a time (real child process)', () => {
  it('answers a request whose response line passes the limit with the edge\'s refusal, and stops the process', async () => {
    const transport = new BoundedStdioTransport(process.execPath, ['-e', CHILD], LIMIT);
    const received: JSONRPCMessage[] = [];
    const errors: string[] = [];
    const closed = new Promise<void>((resolve) => (transport.onclose = resolve));
    transport.onmessage = (m) => void received.push(m);
    transport.onerror = (e) => void errors.push(e.message);
    await transport.start();

    await transport.send({ jsonrpc: '2.0', id: 1, method: 'ping' });
    await transport.send({ jsonrpc: '2.0', id: 2, method: 'flood' });
    const started = Date.now();
    await closed;

    expect(received).toEqual([
      { jsonrpc: '2.0', id: 1, result: {} },
      { jsonrpc: '2.0', id: 2, error: { code: RESPONSE_TOO_LARGE_CODE, message: `the upstream's response exceeded the edge's limit of ${LIMIT} bytes` } },
    ]);
    expect(errors).toEqual([`an upstream stdout line passed the edge's limit of ${LIMIT} bytes; the process was stopped`]);
    // The child ignores its closed stdin: SIGTERM after one step stops it.
    expect(Date.now() - started).toBeLessThan(5000);
    await expect(transport.send({ jsonrpc: '2.0', id: 3, method: 'ping' })).rejects.toThrow('Not connected');
  });

  it('delivers messages split across chunks and many in one chunk, each up to the limit', async () => {
    const script = `process.stdout.write(JSON.stringify({ jsonrpc: '2.0', method: 'a', params: { t: 'y'.repeat(${LIMIT - 100}) } }) + '\\n'
      + JSON.stringify({ jsonrpc: '2.0', method: 'b' }) + '\\r\\n'); setTimeout(() => process.exit(0), 200);`;
    const transport = new BoundedStdioTransport(process.execPath, ['-e', script], LIMIT);
    const received: JSONRPCMessage[] = [];
    const closed = new Promise<void>((resolve) => (transport.onclose = resolve));
    transport.onmessage = (m) => void received.push(m);
    transport.onerror = (e) => { throw e; };
    await transport.start();
    await closed;
    expect(received.map((m) => (m as { method: string }).method)).toEqual(['a', 'b']);
  });
});
