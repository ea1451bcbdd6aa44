import { LifecycleTransitionError } from './lifecycle-transition.error';
import { SessionLifecycle } from './session-lifecycle.machine';

/** A session whose initialize (id 0) was admitted and answered on `version`. */
function answeredSession(version = '2025-06-18'): SessionLifecycle {
  const session = new SessionLifecycle();
  expect(session.checkRequest('initialize', 0)).toBeNull();
  session.onInitializeAnswered(version);
  return session;
}

function operatingSession(): SessionLifecycle {
  const session = answeredSession();
  expect(session.checkNotification('notifications/initialized')).toBe(true);
  return session;
}

describe('SessionLifecycle — before initialize', () => {
  it('starts awaiting initialize with no version', () => {
    const session = new SessionLifecycle();
    expect(session.phase).toBe('awaiting-initialize');
    expect(session.protocolVersion).toBeUndefined();
  });

  it('refuses tools/list before initialize and says to send initialize first', () => {
    expect(new SessionLifecycle().checkRequest('tools/list', 1)).toEqual({
      code: -32600,
      message: "Invalid Request: 'tools/list' is not allowed before initialize; send initialize first",
    });
  });

  it('allows ping before initialize', () => {
    expect(new SessionLifecycle().checkRequest('ping', 1)).toBeNull();
  });

  it('allows initialize', () => {
    expect(new SessionLifecycle().checkRequest('initialize', 1)).toBeNull();
  });

  it('refuses tools/list while the initialize is still unanswered', () => {
    const session = new SessionLifecycle();
    session.checkRequest('initialize', 1);
    expect(session.checkRequest('tools/list', 2)?.message).toBe(
      "Invalid Request: 'tools/list' is not allowed while initialize is unanswered; wait for its result, then send notifications/initialized",
    );
    expect(session.checkRequest('ping', 3)).toBeNull();
  });

  it('drops every notification, including initialized, before the initialize answer', () => {
    const session = new SessionLifecycle();
    expect(session.checkNotification('notifications/initialized')).toBe(false);
    expect(session.checkNotification('notifications/cancelled')).toBe(false);
    expect(session.phase).toBe('awaiting-initialize');
  });
});

describe('SessionLifecycle — between the initialize answer and initialized', () => {
  it('records the negotiated version and waits for initialized', () => {
    const session = answeredSession('2025-03-26');
    expect(session.phase).toBe('awaiting-initialized');
    expect(session.protocolVersion).toBe('2025-03-26');
  });

  it('refuses tools/list and says only ping may be sent', () => {
    expect(answeredSession().checkRequest('tools/list', 1)).toEqual({
      code: -32600,
      message:
        "Invalid Request: 'tools/list' is not allowed until notifications/initialized is received; only ping may be sent before it",
    });
  });

  it('allows ping', () => {
    expect(answeredSession().checkRequest('ping', 1)).toBeNull();
  });

  it('drops other notifications until initialized arrives', () => {
    expect(answeredSession().checkNotification('notifications/roots/list_changed')).toBe(false);
  });

  it('lets the server send only ping and log messages to the client', () => {
    const session = answeredSession();
    expect(session.canSendToClient('ping')).toBe(true);
    expect(session.canSendToClient('notifications/message')).toBe(true);
    expect(session.canSendToClient('notifications/tools/list_changed')).toBe(false);
  });

  it('enters operation when notifications/initialized is accepted', () => {
    const session = answeredSession();
    expect(session.checkNotification('notifications/initialized')).toBe(true);
    expect(session.phase).toBe('operating');
  });
});

describe('SessionLifecycle — operating', () => {
  it('allows any request, including methods it does not know', () => {
    const session = operatingSession();
    expect(session.checkRequest('tools/list', 1)).toBeNull();
    expect(session.checkRequest('tools/call', 2)).toBeNull();
    expect(session.checkRequest('no/such/method', 3)).toBeNull();
    expect(session.checkRequest('ping', 4)).toBeNull();
  });

  it('processes notifications but drops a repeated initialized', () => {
    const session = operatingSession();
    expect(session.checkNotification('notifications/cancelled')).toBe(true);
    expect(session.checkNotification('notifications/initialized')).toBe(false);
  });

  it('lets the server send anything to the client', () => {
    expect(operatingSession().canSendToClient('notifications/tools/list_changed')).toBe(true);
  });

  it('refuses a second initialize', () => {
    expect(operatingSession().checkRequest('initialize', 99)).toEqual({
      code: -32600,
      message: 'Invalid Request: initialize was already received in this session; open a new session to initialize again',
    });
  });
});

describe('SessionLifecycle — second initialize and id reuse', () => {
  it('refuses a second initialize while the first is unanswered', () => {
    const session = new SessionLifecycle();
    session.checkRequest('initialize', 1);
    expect(session.checkRequest('initialize', 2)?.message).toMatch(/initialize was already received/);
  });

  it('refuses a second initialize after the first was answered', () => {
    expect(answeredSession().checkRequest('initialize', 5)?.code).toBe(-32600);
  });

  it('allows a new initialize, with a fresh id, after the first one failed', () => {
    const session = new SessionLifecycle();
    session.checkRequest('initialize', 1);
    session.onInitializeFailed();
    expect(session.phase).toBe('awaiting-initialize');
    expect(session.checkRequest('initialize', 2)).toBeNull();
  });

  it('refuses an integer id already used in this session', () => {
    const session = operatingSession();
    expect(session.checkRequest('tools/list', 7)).toBeNull();
    expect(session.checkRequest('tools/call', 7)).toEqual({
      code: -32600,
      message: 'Invalid Request: id 7 was already used in this session; use a fresh id',
    });
  });

  it('refuses a string id already used and quotes it', () => {
    const session = operatingSession();
    session.checkRequest('tools/list', 'abc');
    expect(session.checkRequest('tools/list', 'abc')?.message).toBe(
      'Invalid Request: id "abc" was already used in this session; use a fresh id',
    );
  });

  it('counts the initialize id as used', () => {
    expect(operatingSession().checkRequest('tools/list', 0)?.message).toMatch(/id 0 was already used/);
  });

  it('uses no id for a request it refuses: it was never processed', () => {
    const session = new SessionLifecycle();
    expect(session.checkRequest('tools/list', 1)?.message).toMatch(/not allowed before initialize/);
    expect(session.checkRequest('initialize', 1)).toBeNull();
  });

  it('frees the id of an admitted request the host withdraws, and only that one', () => {
    const session = operatingSession();
    expect(session.checkRequest('ping', 101)).toBeNull();
    expect(session.checkRequest('ping', 102)).toBeNull();
    session.withdrawRequest(101);
    expect(session.checkRequest('ping', 101)).toBeNull();
    expect(session.checkRequest('ping', 102)?.message).toMatch(/id 102 was already used/);
  });

  it('does not confuse the integer 1 with the string "1"', () => {
    const session = operatingSession();
    session.checkRequest('ping', 1);
    expect(session.checkRequest('ping', '1')).toBeNull();
  });

  it('keeps ids per session', () => {
    const first = operatingSession();
    const second = operatingSession();
    first.checkRequest('ping', 5);
    expect(second.checkRequest('ping', 5)).toBeNull();
  });

  it('forgets the oldest ids past the configured bound', () => {
    const session = new SessionLifecycle({ maxTrackedIds: 2 });
    session.checkRequest('ping', 1);
    session.checkRequest('ping', 2);
    session.checkRequest('ping', 3);
    expect(session.checkRequest('ping', 1)).toBeNull();
    expect(session.checkRequest('ping', 3)?.message).toMatch(/already used/);
  });
});

describe('SessionLifecycle — closing and host mistakes', () => {
  it('refuses requests and drops notifications once closed', () => {
    const session = operatingSession();
    session.close();
    session.close();
    expect(session.phase).toBe('closed');
    expect(session.checkRequest('tools/list', 50)?.message).toBe('Invalid Request: the session is closed; open a new session');
    expect(session.checkNotification('notifications/cancelled')).toBe(false);
    expect(session.canSendToClient('ping')).toBe(false);
  });

  it('throws when the host reports an initialize answer that was never admitted', () => {
    expect(() => new SessionLifecycle().onInitializeAnswered('2025-06-18')).toThrow(LifecycleTransitionError);
  });

  it('throws when the host reports the initialize answer twice', () => {
    const session = answeredSession();
    expect(() => session.onInitializeAnswered('2025-06-18')).toThrow(
      "Cannot apply 'initialize-answered' to a session in phase 'awaiting-initialized'",
    );
  });

  it('throws a coded error when initialized is forced out of order', () => {
    try {
      new SessionLifecycle().onInitialized();
      throw new Error('expected a throw');
    } catch (error: unknown) {
      expect(error).toBeInstanceOf(LifecycleTransitionError);
      expect((error as LifecycleTransitionError).code).toBe('ILLEGAL_LIFECYCLE_TRANSITION');
    }
  });

  it('throws when a failure is reported with no initialize in flight', () => {
    expect(() => operatingSession().onInitializeFailed()).toThrow(LifecycleTransitionError);
  });

  it('cuts a huge method name in the refusal message', () => {
    const message = new SessionLifecycle().checkRequest('m'.repeat(5000), 1)?.message ?? '';
    expect(message.length).toBeLessThan(200);
  });
});
