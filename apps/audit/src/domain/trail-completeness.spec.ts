import { completeness } from './trail-completeness';

const log = (high: string) => ({ topic: 'calls', partition: 0, low: '0', high });

describe('completeness', () => {
  it('is complete and caught up when every offset of the log was handled', () => {
    const report = completeness([{ topic: 'calls', partition: 0, firstOffset: '0', nextOffset: '5', handled: 5 }], [log('5')], 1);
    expect(report).toMatchObject({ complete: true, caughtUp: true, deadLetters: 1, partitions: [{ position: '5', missing: 0, pending: 0 }] });
  });

  it('reports offsets passed over without a trace as missing', () => {
    const report = completeness([{ topic: 'calls', partition: 0, firstOffset: '0', nextOffset: '5', handled: 3 }], [log('5')], 0);
    expect(report).toMatchObject({ complete: false, partitions: [{ missing: 2 }] });
  });

  it('reports a recorder behind the log as pending, not missing', () => {
    const report = completeness([{ topic: 'calls', partition: 0, firstOffset: '0', nextOffset: '2', handled: 2 }], [log('7')], 0);
    expect(report).toMatchObject({ complete: true, caughtUp: false, partitions: [{ pending: 5 }] });
  });

  it('counts a log never read as pending from its low offset', () => {
    expect(completeness([], [log('3')], 0)).toMatchObject({ complete: true, caughtUp: false, partitions: [{ position: '0', pending: 3 }] });
  });
});
