import fc from 'fast-check';

import { inspectIncoming, inspectIncomingText, type IncomingDecision } from './incoming-message.inspector';
import { SessionLifecycle } from './session-lifecycle.machine';

const req = (id: unknown, method: string, params?: unknown): Record<string, unknown> =>
  params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params };
const note = (method: string, params?: unknown): Record<string, unknown> =>
  params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params };

function sessionOn(version: string): SessionLifecycle {
  const session = new SessionLifecycle();
  inspectIncoming(session, req(0, 'initialize', { protocolVersion: version }));
  session.onInitializeAnswered(version);
  inspectIncoming(session, note('notifications/initialized'));
  return session;
}

function replyOf(decision: IncomingDecision): unknown {
  return decision.action === 'reply' ? decision.reply : undefined;
}

describe('inspectIncoming — single messages', () => {
  it('walks a whole handshake from raw text', () => {
    const session = new SessionLifecycle();
    const init = inspectIncomingText(session, '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}');
    expect(init).toMatchObject({ action: 'process', kind: 'request', message: { id: 1, method: 'initialize' } });
    session.onInitializeAnswered('2025-11-25');
    expect(inspectIncomingText(session, '{"jsonrpc":"2.0","method":"notifications/initialized"}')).toMatchObject({
      action: 'process',
      kind: 'notification',
    });
    expect(inspectIncomingText(session, '{"jsonrpc":"2.0","id":2,"method":"tools/list"}')).toMatchObject({
      action: 'process',
      kind: 'request',
    });
  });

  it('answers unparseable text with -32700 and a null id', () => {
    expect(replyOf(inspectIncomingText(new SessionLifecycle(), '{"jsonrpc":'))).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32700, message: expect.stringMatching(/^Parse error: the message is not valid JSON/) },
    });
  });

  it('answers a float id with -32600 and a null id', () => {
    expect(replyOf(inspectIncoming(sessionOn('2025-06-18'), req(1.5, 'tools/list')))).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600, message: 'Invalid Request: id must be a string or an integer, got float' },
    });
  });

  it('answers a bad envelope with the request id when that id is valid', () => {
    const decision = inspectIncoming(sessionOn('2025-06-18'), { jsonrpc: '1.0', id: 'r1', method: 'tools/list' });
    expect(replyOf(decision)).toMatchObject({ id: 'r1', error: { code: -32600 } });
  });

  it('answers tools/list before initialize with the lifecycle refusal', () => {
    expect(replyOf(inspectIncoming(new SessionLifecycle(), req(3, 'tools/list')))).toEqual({
      jsonrpc: '2.0',
      id: 3,
      error: {
        code: -32600,
        message: "Invalid Request: 'tools/list' is not allowed before initialize; send initialize first",
      },
    });
  });

  it('answers a reused id with a refusal carrying that id', () => {
    const session = sessionOn('2025-06-18');
    expect(inspectIncoming(session, req(5, 'tools/list')).action).toBe('process');
    expect(replyOf(inspectIncoming(session, req(5, 'tools/list')))).toMatchObject({
      id: 5,
      error: { message: 'Invalid Request: id 5 was already used in this session; use a fresh id' },
    });
  });

  it('passes a valid response on', () => {
    const decision = inspectIncoming(sessionOn('2025-06-18'), { jsonrpc: '2.0', id: 'srv-1', result: {} });
    expect(decision).toMatchObject({ action: 'process', kind: 'response', message: { id: 'srv-1' } });
  });

  it('answers a response with both result and error without echoing its id', () => {
    const value = { jsonrpc: '2.0', id: 4, result: {}, error: { code: 1, message: 'x' } };
    expect(replyOf(inspectIncoming(sessionOn('2025-06-18'), value))).toMatchObject({ id: null, error: { code: -32600 } });
  });

  it('drops a response that arrives after the session closed', () => {
    const session = sessionOn('2025-06-18');
    session.close();
    expect(inspectIncoming(session, { jsonrpc: '2.0', id: 1, result: {} }).action).toBe('drop');
  });
});

describe('inspectIncoming — a notification never gets a reply', () => {
  it('passes a notification with an unknown method on once operating (the handler ignores it)', () => {
    expect(inspectIncoming(sessionOn('2025-06-18'), note('notifications/whatever'))).toMatchObject({
      action: 'process',
      kind: 'notification',
    });
  });

  it('drops a notification with garbage params and says why', () => {
    expect(inspectIncoming(sessionOn('2025-06-18'), note('notifications/cancelled', 'garbage'))).toEqual({
      action: 'drop',
      reason: expect.stringMatching(/^malformed notification: Invalid Request: params must be an object/),
    });
  });

  it('answers a method without id whose jsonrpc is not "2.0" as an invalid request with id null, not as a notification', () => {
    for (const value of [{ jsonrpc: '1.0', method: 'ping' }, { method: 'ping' }, { jsonrpc: 2, method: 'ping' }]) {
      expect(replyOf(inspectIncoming(sessionOn('2025-06-18'), value))).toMatchObject({
        jsonrpc: '2.0', id: null, error: { code: -32600, message: expect.stringContaining('jsonrpc must be "2.0"') },
      });
    }
  });

  it('drops a notification that arrives before initialize', () => {
    expect(inspectIncoming(new SessionLifecycle(), note('notifications/cancelled'))).toEqual({
      action: 'drop',
      reason: "notification 'notifications/cancelled' is not accepted in phase 'awaiting-initialize'",
    });
  });

  it('never replies to a notification-shaped value, in any phase', () => {
    const phases = [
      (): SessionLifecycle => new SessionLifecycle(),
      (): SessionLifecycle => sessionOn('2025-06-18'),
    ];
    const notificationShaped = fc.record({
      jsonrpc: fc.constant('2.0'),
      method: fc.string({ minLength: 1 }),
      params: fc.jsonValue(),
    });
    fc.assert(
      fc.property(notificationShaped, fc.constantFrom(...phases), (value, makeSession) => {
        expect(inspectIncoming(makeSession(), value).action).not.toBe('reply');
      }),
    );
  });
});

describe('inspectIncoming — batches', () => {
  it('answers an empty batch with -32600', () => {
    expect(replyOf(inspectIncoming(sessionOn('2025-03-26'), []))).toMatchObject({
      id: null,
      error: { code: -32600, message: expect.stringMatching(/empty batch/) },
    });
  });

  it.each([['2025-06-18'], ['2025-11-25'], ['2024-11-05']])('refuses a batch on %s', (version) => {
    const decision = inspectIncoming(sessionOn(version), [req(1, 'ping'), req(2, 'tools/list')]);
    expect(replyOf(decision)).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: {
        code: -32600,
        message: `Invalid Request: JSON-RPC batches are not supported on the negotiated protocol version "${version}"; send each message on its own`,
      },
    });
  });

  it('refuses a batch before any version is negotiated', () => {
    expect(replyOf(inspectIncoming(new SessionLifecycle(), [req(1, 'initialize')]))).toMatchObject({
      error: { message: expect.stringMatching(/before a protocol version has been negotiated/) },
    });
  });

  it('admits a batch on 2025-03-26 and decides every item in order', () => {
    const decision = inspectIncoming(sessionOn('2025-03-26'), [
      req(1, 'tools/list'),
      note('notifications/cancelled', { requestId: 1 }),
      req(1.5, 'ping'),
      [req(2, 'ping')],
      req(1, 'tools/list'),
    ]);
    expect(decision.action).toBe('batch');
    if (decision.action !== 'batch') return;
    expect(decision.entries.map((entry) => entry.action)).toEqual(['process', 'process', 'reply', 'reply', 'reply']);
    expect(replyOf(decision.entries[3]!)).toMatchObject({
      id: null,
      error: { message: 'Invalid Request: a batch must not contain another batch' },
    });
    expect(replyOf(decision.entries[4]!)).toMatchObject({
      id: 1,
      error: { message: 'Invalid Request: id 1 is repeated within this batch; give every request in a batch its own id' },
    });
  });

  it('tells an id repeated within a batch from one used earlier in the session', () => {
    const lifecycle = sessionOn('2025-03-26');
    const decision = inspectIncoming(lifecycle, [req('b1', 'tools/call'), req('b1', 'tools/call'), req(7, 'ping'), req('7', 'ping')]);
    expect(decision.action === 'batch' && decision.entries.map((entry) => entry.action)).toEqual(['process', 'reply', 'process', 'process']);
    if (decision.action !== 'batch') return;
    expect(replyOf(decision.entries[1]!)).toEqual({
      jsonrpc: '2.0', id: 'b1', error: { code: -32600, message: 'Invalid Request: id "b1" is repeated within this batch; give every request in a batch its own id' },
    });
    const later = inspectIncoming(lifecycle, [req(7, 'ping')]);
    expect(later.action === 'batch' && replyOf(later.entries[0]!)).toMatchObject({ error: { message: expect.stringMatching(/id 7 was already used in this session/) } });
  });

  it('answers each non-message item of a batch on its own, like JSON-RPC', () => {
    const decision = inspectIncoming(sessionOn('2025-03-26'), [1, 2]);
    expect(decision.action === 'batch' && decision.entries.map(replyOf)).toEqual([
      expect.objectContaining({ id: null, error: expect.objectContaining({ code: -32600 }) }),
      expect.objectContaining({ id: null, error: expect.objectContaining({ code: -32600 }) }),
    ]);
  });

  it('produces no reply at all for a batch of notifications', () => {
    const decision = inspectIncoming(sessionOn('2025-03-26'), [note('a/b'), note('c/d', 'garbage')]);
    expect(decision.action === 'batch' && decision.entries.every((entry) => entry.action !== 'reply')).toBe(true);
  });
});
