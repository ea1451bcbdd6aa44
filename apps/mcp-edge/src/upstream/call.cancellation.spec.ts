import { CallCancelled, cancellationDetail } from './call.cancellation';

describe('cancellationDetail: who cancelled a call, as its audit record says', () => {
  it('names the edge-known causes, with the client reason bounded', () => {
    expect(cancellationDetail(new CallCancelled('session_deleted'))).toBe('the client deleted its session (DELETE) during the call');
    expect(cancellationDetail(new CallCancelled('connection_closed'))).toBe('the client closed the connection the call came on');
    expect(cancellationDetail(new CallCancelled('client', 'x'.repeat(500)))).toBe(`the client cancelled the call (notifications/cancelled): "${'x'.repeat(200)}"`);
  });

  it("reads the SDK server's string reason as the client's, and says so when no reason tells", () => {
    expect(cancellationDetail('user gave up')).toBe('the client cancelled the call (notifications/cancelled): "user gave up"');
    expect(cancellationDetail(new DOMException('This operation was aborted', 'AbortError'))).toBe('the call was cancelled by its client or by the end of its session');
  });

  it('is what an upstream is told when the edge passes the cancel on', () => {
    expect(String(new CallCancelled('session_closed'))).toBe('the session closed during the call (idle expiry or the edge stopping)');
  });
});
