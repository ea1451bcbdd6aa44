import { describeFailure } from './failure.reason';

describe('describeFailure', () => {
  it('gives the message of an Error', () => {
    expect(describeFailure(new Error('port 5432 is taken'))).toBe('port 5432 is taken');
  });

  it('keeps a rejected string as it is', () => {
    expect(describeFailure('Postgres init script exited with code 1')).toBe('Postgres init script exited with code 1');
  });

  it('never answers "undefined" for a rejection without a value', () => {
    for (const nothing of [undefined, null, '']) {
      expect(describeFailure(nothing)).toBe('failed without a reason (a dependency rejected with no error)');
    }
  });

  it('shows the fields of a plain object', () => {
    expect(describeFailure({ code: 'EADDRINUSE' })).toBe('{"code":"EADDRINUSE"}');
  });
});
