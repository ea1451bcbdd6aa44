import { QueryFailedError } from 'typeorm';
import { isBackendOutage } from './backend-outage';

const withCode = (message: string, code: string) => Object.assign(new Error(message), { code });

describe('isBackendOutage', () => {
  it.each([
    ['a refused connection', withCode('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED')],
    ['a reset connection', withCode('read ECONNRESET', 'ECONNRESET')],
    ['an administrator shutdown (57P01)', withCode('terminating connection due to administrator command', '57P01')],
    ['a server starting up (57P03)', withCode('the database system is starting up', '57P03')],
    ['a connection exception (08006)', withCode('connection failure', '08006')],
    ['pg losing the socket', new Error('Connection terminated unexpectedly')],
    ['a pool timeout', new Error('timeout exceeded when trying to connect')],
    ['a TypeORM query over a dead connection', new QueryFailedError('SELECT 1', [], withCode('terminating connection due to administrator command', '57P01'))],
    ['an AggregateError of refused addresses', Object.assign(new AggregateError([withCode('connect ECONNREFUSED ::1:5432', 'ECONNREFUSED')]), {})],
    ['a wrapped cause', new Error('load failed', { cause: withCode('x', 'ECONNREFUSED') })],
  ])('recognises %s', (_, error) => {
    expect(isBackendOutage(error)).toBe(true);
  });

  it.each([
    ['a unique violation', withCode('duplicate key value violates unique constraint', '23505')],
    ['a syntax error', new QueryFailedError('SELEC 1', [], withCode('syntax error at or near "SELEC"', '42601'))],
    ['a plain bug', new TypeError("Cannot read properties of undefined (reading 'x')")],
    ['not an error at all', 'ECONNREFUSED'],
    ['undefined', undefined],
  ])('leaves %s alone', (_, error) => {
    expect(isBackendOutage(error)).toBe(false);
  });
});
