/**
 * Test helpers for the provisioned infrastructure (see global-setup.ts, which sets
 * KAFKA_BROKERS and DATABASE_URL before any Jest worker starts).
 */
import { randomBytes } from 'node:crypto';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from 'pg';

/** Where global-setup writes what it provisioned (for debugging; tests read process.env). */
export const INFRA_STATE_FILE = path.join(os.tmpdir(), 'estate-test-infra.json');

/** The repository root (test/support/ is two levels down). */
export const REPO_ROOT = path.resolve(__dirname, '..', '..');

/**
 * Environment names the services' config loaders read (the contract with docker-compose.yml).
 * TODO(lead): once apps/<app>/src/config.ts exist, test/infra.e2e-spec.ts reads the names from
 * them instead; keep this list only as the fallback and for the bank example.
 */
export const KNOWN_ENV = {
  common: ['DATABASE_URL', 'KAFKA_BROKERS', 'LOG_LEVEL', 'ESTATE_TOPIC_PREFIX'],
  auth: ['ESTATE_JWT_SECRET', 'ESTATE_JWKS_URL', 'ESTATE_JWT_ISSUER', 'ESTATE_JWT_AUDIENCE', 'ESTATE_AUTH'],
  registry: ['ESTATE_REGISTRY_PORT', 'ESTATE_REGISTRY_HOST'],
  discovery: ['ESTATE_DISCOVERY_PORT', 'ESTATE_DISCOVERY_HOST'],
  'mcp-edge': ['ESTATE_EDGE_PORT', 'ESTATE_EDGE_HOST', 'ESTATE_ALLOWED_ORIGINS', 'ESTATE_ALLOWED_HOSTS'],
  audit: ['ESTATE_AUDIT_PORT', 'ESTATE_AUDIT_HOST'],
  bank: ['BANK_PORT', 'BANK_HOST', 'LOG_LEVEL'],
} as const;

/** Default listening ports of each service (container side in docker-compose.yml). */
export const KNOWN_PORTS: Record<string, number> = {
  'mcp-edge': 8000,
  registry: 8001,
  discovery: 8002,
  audit: 8003,
  console: 8004,
  bank: 9100,
};

function randomId(bytes = 6): string {
  return randomBytes(bytes).toString('hex');
}

/** A topic prefix no other test uses, e.g. `t3fa9c01b2d4e.`; pass it as ESTATE_TOPIC_PREFIX. */
export function randomTopicPrefix(): string {
  return `t${randomId()}.`;
}

/** The brokers global-setup provisioned (or the caller set in KAFKA_BROKERS). */
export function kafkaBrokers(): string[] {
  const raw = process.env.KAFKA_BROKERS;
  if (!raw) {
    throw new Error('KAFKA_BROKERS is not set: run under Jest (test/support/global-setup.ts) or export it');
  }
  return raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

/** The PostgreSQL server global-setup provisioned (a URL to its `postgres` database). */
export function databaseUrl(): string {
  const url = process.env.DATABASE_URL;
  if (!url) {
    throw new Error('DATABASE_URL is not set: run under Jest (test/support/global-setup.ts) or export it');
  }
  return url;
}

/** A TCP port free on 127.0.0.1 right now. */
/**
 * A port nothing listens on, for a server a test starts (and may restart on the same port). Taken
 * below the kernel's ephemeral range (32768 and up on Linux): a port from that range can become the
 * local end of any outgoing connection between this check and the server's bind, or while a
 * restarted server is down, and the server then fails with "Address already in use" (a private
 * Kafka broker did, in CI).
 */
export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 100; attempt += 1) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    if (await bindable(port)) return port;
  }
  throw new Error('no free port between 20000 and 32000 after 100 tries');
}

function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.unref();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}

function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

/**
 * CREATE DATABASE with a random name on the provisioned server. `drop()` terminates the
 * remaining connections and drops it (call it in afterAll).
 */
export async function createTestDatabase(): Promise<{ url: string; name: string; drop(): Promise<void> }> {
  const admin = databaseUrl();
  const name = `estate_test_${randomId()}`;
  const client = new Client({ connectionString: admin });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE "${name}"`);
  } finally {
    await client.end();
  }
  let dropped = false;
  return {
    name,
    url: withDatabase(admin, name),
    async drop() {
      if (dropped) return;
      dropped = true;
      const c = new Client({ connectionString: admin });
      await c.connect();
      try {
        await c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      } finally {
        await c.end();
      }
    },
  };
}
