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
});
