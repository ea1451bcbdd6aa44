import { judgePosition, messageEventId } from './log-position';

const log = (low: string, high: string) => ({ partition: 0, low, high });

describe('judging a stored position against the log', () => {
  it('starts a consumer with no position at the start of the log', () => {
    expect(judgePosition(undefined, log('4', '10'))).toEqual({ kind: 'fresh', startAt: '4' });
    expect(judgePosition({ next: '0', lastEventId: null }, log('0', '3'))).toEqual({ kind: 'fresh', startAt: '0' });
  });

  it('re-reads the last applied offset to check it still holds the event applied there', () => {
    expect(judgePosition({ next: '280', lastEventId: 'e279' }, log('0', '300'))).toEqual({ kind: 'verify', startAt: '279', expectId: 'e279' });
  });

  it('calls a log that ends below the position lost: it was reset or recreated', () => {
    const verdict = judgePosition({ next: '280', lastEventId: 'e279' }, log('0', '22'));
    expect(verdict).toMatchObject({ kind: 'lost', startAt: '0', unread: false });
    expect(verdict.kind === 'lost' && verdict.reason).toMatch(/ends at offset 22, below the stored position 280/);
  });

  it('calls a log whose start moved past the position lost: events were deleted unread', () => {
    expect(judgePosition({ next: '5', lastEventId: 'e4' }, log('9', '20'))).toMatchObject({ kind: 'lost', startAt: '9', unread: true });
  });

  it('calls a missing partition lost', () => {
    expect(judgePosition({ next: '5', lastEventId: 'e4' }, undefined)).toMatchObject({ kind: 'lost', startAt: '0' });
  });

  it('resumes where the last applied event can no longer be checked', () => {
    expect(judgePosition({ next: '5', lastEventId: 'e4' }, log('5', '9'))).toEqual({ kind: 'resume', startAt: '5' });
    expect(judgePosition({ next: '5', lastEventId: null }, log('0', '9'))).toEqual({ kind: 'resume', startAt: '5' });
  });
});

describe('the event id of a message', () => {
  it('comes from the estate-id header, else from the envelope, else there is none', () => {
    expect(messageEventId({ headers: { 'estate-id': 'h' }, value: '{"id":"v"}' })).toBe('h');
    expect(messageEventId({ headers: {}, value: '{"id":"v"}' })).toBe('v');
    expect(messageEventId({ headers: {}, value: 'not json' })).toBeNull();
    expect(messageEventId({ headers: {}, value: null })).toBeNull();
  });
});
