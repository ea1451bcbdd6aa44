import { databaseCheck, publicView, runChecks } from './health.check';

describe('runChecks', () => {
  it('names every failing check and keeps reasons out of the public view', async () => {
    const readiness = await runChecks([
      { name: 'database', run: async () => ({ ok: false, reason: 'connect ECONNREFUSED 127.0.0.1:5432' }) },
      { name: 'projector.lag', run: async () => ({ ok: true }) },
      { name: 'thrower', run: async () => { throw new Error('boom'); } },
      { name: 'slow', run: () => new Promise(() => undefined) },
    ], 50);
    expect(readiness.ready).toBe(false);
    expect(readiness.failing).toEqual(['database', 'thrower', 'slow']);
    expect(readiness.checks.find((c) => c.name === 'slow')?.reason).toBe('no answer within 50 ms');
    expect(JSON.stringify(publicView(readiness))).not.toMatch(/ECONNREFUSED|boom|50 ms/);
  });

  it('times the database round trip out', async () => {
    const result = await databaseCheck({ query: () => new Promise(() => undefined) }, 30).run();
    expect(result).toEqual({ ok: false, reason: 'the database did not answer within 30 ms' });
  });
});
