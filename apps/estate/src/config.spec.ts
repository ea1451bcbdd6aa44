import { loadEmbeddedConfig } from './config';

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
});
