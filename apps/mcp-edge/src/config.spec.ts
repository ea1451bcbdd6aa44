import { loadEdgeConfig } from './config';

const SECRET = { ESTATE_JWT_SECRET: 'edge-config-secret-0123456789' };

describe('loadEdgeConfig', () => {
  it('binds to loopback with a 15 minute idle timeout unless told otherwise', () => {
    const config = loadEdgeConfig(SECRET);
    expect(config).toMatchObject({ host: '127.0.0.1', port: 8000, sessionIdleMs: 900000, allowedOrigins: [], allowedHosts: [] });
  });

  it('refuses ESTATE_AUTH=none on a non-loopback address and allows it on loopback', () => {
    expect(() => loadEdgeConfig({ ESTATE_AUTH: 'none', ESTATE_EDGE_HOST: '0.0.0.0' })).toThrow(/ESTATE_AUTH=none is only allowed when ESTATE_EDGE_HOST is a loopback address \(got 0\.0\.0\.0\)/);
    expect(loadEdgeConfig({ ESTATE_AUTH: 'none', ESTATE_EDGE_HOST: '::1' }).auth.mode).toBe('none');
  });

  it('lists every bad number at once', () => {
    expect(() => loadEdgeConfig({ ...SECRET, ESTATE_SESSION_IDLE_SECONDS: '0', ESTATE_MAX_BODY_BYTES: 'lots' })).toThrow(
      /ESTATE_SESSION_IDLE_SECONDS must be a positive number[\s\S]*ESTATE_MAX_BODY_BYTES must be a positive number/,
    );
  });

  it('reads the upstream limits: a message cap that follows the result limit, re-listing, and a text action it knows', () => {
    expect(loadEdgeConfig(SECRET).upstream).toMatchObject({ pool: { read: { maxMessageBytes: 4 * 1024 * 1024 + 65536 }, relistMs: 60000 }, textAction: 'refuse' });
    const custom = loadEdgeConfig({ ...SECRET, ESTATE_MAX_RESULT_BYTES: '1000', ESTATE_UPSTREAM_RELIST_SECONDS: '5', ESTATE_UPSTREAM_TEXT_ACTION: 'strip' });
    expect(custom.upstream).toMatchObject({ pool: { read: { maxMessageBytes: 1000 + 65536 }, relistMs: 5000 }, textAction: 'strip' });
    expect(() => loadEdgeConfig({ ...SECRET, ESTATE_UPSTREAM_TEXT_ACTION: 'ignore', ESTATE_MAX_UPSTREAM_MESSAGE_BYTES: '-1' })).toThrow(
      /ESTATE_MAX_UPSTREAM_MESSAGE_BYTES must be a positive number[\s\S]*ESTATE_UPSTREAM_TEXT_ACTION/,
    );
  });

  it('takes a scrape token of at least 16 characters, and leaves /metrics to loopback without one', () => {
    expect(loadEdgeConfig(SECRET).metricsToken).toBeUndefined();
    expect(loadEdgeConfig({ ...SECRET, ESTATE_METRICS_TOKEN: 'scrape-token-0123456789' }).metricsToken).toBe('scrape-token-0123456789');
    expect(() => loadEdgeConfig({ ...SECRET, ESTATE_METRICS_TOKEN: 'short' })).toThrow(/ESTATE_METRICS_TOKEN must be at least 16 characters/);
  });

  it('takes a PostgreSQL URL for spent confirmation states, none by default, and names anything else', () => {
    expect(loadEdgeConfig(SECRET).edgeDatabaseUrl).toBeUndefined();
    expect(loadEdgeConfig({ ...SECRET, ESTATE_EDGE_DATABASE_URL: 'postgres://u:p@db:5432/estate' }).edgeDatabaseUrl).toBe('postgres://u:p@db:5432/estate');
    expect(() => loadEdgeConfig({ ...SECRET, ESTATE_EDGE_DATABASE_URL: 'mysql://db/estate' })).toThrow(/ESTATE_EDGE_DATABASE_URL must be a postgres/);
  });

  it('takes a requestState key of at least 32 characters, and none by default', () => {
    expect(loadEdgeConfig(SECRET).requestStateKey).toBeUndefined();
    expect(loadEdgeConfig({ ...SECRET, ESTATE_REQUEST_STATE_KEY: 'k'.repeat(32) }).requestStateKey).toBe('k'.repeat(32));
    expect(() => loadEdgeConfig({ ...SECRET, ESTATE_REQUEST_STATE_KEY: 'short' })).toThrow(/ESTATE_REQUEST_STATE_KEY must be at least 32 characters/);
  });
});
