import { PoisonMessage, poisonReason } from './poison.classifier';

describe('poisonReason', () => {
  it.each([
    ['a NUL in text (22021)', { code: '22021', message: 'invalid byte sequence for encoding "UTF8": 0x00' }],
    ['a date out of range (22008)', { code: '22008', message: 'date/time field value out of range' }],
    ['a not-null violation (23502)', { code: '23502', message: 'null value' }],
    ['an index row too large (54000)', { code: '54000', message: 'index row size exceeds btree maximum' }],
    ['a wrapped driver error', { message: 'query failed', driverError: { code: '22P05' } }],
  ])('dead-letters %s', (_, error) => {
    expect(poisonReason(error)).toMatch(/^PostgreSQL /);
  });

  it('dead-letters our own refusals and JavaScript data errors', () => {
    expect(poisonReason(new PoisonMessage('not an envelope'))).toBe('not an envelope');
    expect(poisonReason(new RangeError('Invalid time value'))).toBe('RangeError: Invalid time value');
  });

  it.each([
    ['a lost connection', new Error('Connection terminated unexpectedly')],
    ['a refused connection', Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' })],
    ['an admin shutdown (57P01)', { code: '57P01' }],
    ['a serialization failure (40001)', { code: '40001' }],
    ['a deadlock (40P01)', { code: '40P01' }],
  ])('retries %s: an outage is never dead-lettered', (_, error) => {
    expect(poisonReason(error)).toBeUndefined();
  });

  it('retries the dedupe conflict, which a redelivery resolves', () => {
    expect(poisonReason({ code: '23505', constraint: 'entries_event_id_unique' }, ['entries_event_id_unique'])).toBeUndefined();
    expect(poisonReason({ code: '23505', constraint: 'other_unique' }, ['entries_event_id_unique'])).toMatch(/23505/);
  });
});
