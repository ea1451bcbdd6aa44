import { loadEmbeddedConfig, loadEstateConfig } from './config';

describe('npm start settings', () => {
  it('runs discovery, audit and the edge on a second thread when the machine has more than two cores, or when told', () => {
    expect(loadEmbeddedConfig({}, 4).threads).toBe(2);
    expect(loadEmbeddedConfig({}, 2).threads).toBe(1);
    expect(loadEmbeddedConfig({ ESTATE_THREADS: 'auto' }, 8).threads).toBe(2);
    expect(loadEmbeddedConfig({ ESTATE_THREADS: '1' }, 8).threads).toBe(1);
    expect(loadEmbeddedConfig({ ESTATE_THREADS: '2' }, 2).threads).toBe(2);
  });

  it('refuses a thread count it does not offer, naming the setting', () => {
    expect(() => loadEmbeddedConfig({ ESTATE_THREADS: '4' })).toThrow(/ESTATE_THREADS/);
  });

  it("lists every service's problems at once, npm start's own among them", () => {
    const problems = (env: Record<string, string>) => {
      try {
        loadEstateConfig(env, 2);
        return [];
      } catch (error) {
        return (error as Error).message.split('\n').slice(1);
      }
    };
    const listed = problems({ ESTATE_THREADS: '9', ESTATE_AUDIT_PORT: 'x', ESTATE_REBUILD_TIMEOUT_MS: 'abc', ESTATE_WEBHOOK_MAX_ATTEMPTS: 'zz', ESTATE_RATE_PER_TOOL: '-5' });
    for (const name of ['ESTATE_THREADS', 'ESTATE_AUDIT_PORT', 'ESTATE_REBUILD_TIMEOUT_MS', 'ESTATE_WEBHOOK_MAX_ATTEMPTS', 'ESTATE_RATE_PER_TOOL']) {
      expect(listed.filter((line) => line.includes(name))).toHaveLength(1);
    }
    // The development secret npm start makes counts as set; a shared setting is listed once.
    expect(problems({})).toEqual([]);
    expect(problems({ ESTATE_JWT_SECRET: '' })).toEqual([]);
    expect(problems({ ESTATE_ID: 'not an id!' })).toEqual([expect.stringContaining('ESTATE_ID')]);
    expect(loadEstateConfig({ ESTATE_THREADS: '1' }, 8).threads).toBe(1);
  });

  it('refuses a duration that is not finite or longer than a timer holds (2^31-1 ms), naming the setting and the bound', () => {
    // setTimeout turns Infinity, or anything above 2^31-1 ms, into 1 ms: a sweep that spins, a /readyz check that never waits.
    const durations = [
      'ESTATE_SUNSET_SWEEP_SECONDS', 'ESTATE_READY_TIMEOUT_MS', 'ESTATE_READY_STALL_SECONDS', 'ESTATE_SESSION_IDLE_SECONDS',
      'ESTATE_UPSTREAM_TIMEOUT_MS', 'ESTATE_UPSTREAM_RELIST_SECONDS', 'ESTATE_INPUT_PARK_TTL_SECONDS', 'ESTATE_CONFIRM_TTL_SECONDS',
      'ESTATE_CALL_SPOOL_SYNC_MS', 'ESTATE_REBUILD_TIMEOUT_MS', 'ESTATE_WEBHOOK_BACKOFF_MS', 'ESTATE_WEBHOOK_BACKOFF_MAX_MS',
      'ESTATE_WEBHOOK_TIMEOUT_MS', 'ESTATE_WEBHOOK_POLL_MS',
    ];
    for (const value of ['Infinity', '3000000000', '1e400']) {
      const env = Object.fromEntries(durations.map((name) => [name, name.endsWith('_MS') ? value : String(Number(value) / 1000)]));
      if (value === 'Infinity') for (const name of durations) env[name] = 'Infinity';
      let message = '';
      try {
        loadEstateConfig(env, 2);
      } catch (error) {
        message = (error as Error).message;
      }
      expect(message).toMatch(/^Invalid configuration:/);
      for (const name of durations) {
        const line = message.split('\n').find((entry) => entry.includes(name)) ?? `${name} not listed for ${value}`;
        expect(line).toContain('2^31-1 ms');
      }
    }
    // The longest a timer holds is still accepted.
    expect(() => loadEstateConfig({ ESTATE_READY_TIMEOUT_MS: '2147483647', ESTATE_SUNSET_SWEEP_SECONDS: '2147483', ESTATE_SESSION_IDLE_SECONDS: '0.5' }, 2)).not.toThrow();
  });
});
