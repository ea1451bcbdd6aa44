import { EnvReader, readAuth, readCommon, type AuthConfig, type CommonConfig, type Env } from '@estate/platform';

/** How often a busy tool's entry goes to the edges at most: a lone change is never held. */
export const DEFAULT_REPUBLISH_GAP_MS = 1000;

export interface DiscoveryConfig extends CommonConfig {
  host: string;
  port: number;
  auth: AuthConfig;
  /** Consumer group for estate.registry.events; positions live in PostgreSQL, not in Kafka. */
  groupId: string;
  /** The registry to rebuild and verify from when the log is incomplete (GET /v1/events). */
  registryUrl?: string;
  /** Discovery's own estate:admin credential for that; otherwise signed from ESTATE_JWT_SECRET. */
  serviceToken?: string;
  /** A rebuild that takes longer fails (504) and leaves the catalog as it was. */
  rebuildTimeoutMs: number;
  /** A tool changed again sooner than this after its entry went to the catalog topic waits out the rest (0: never). */
  republishGapMs: number;
}

/**
 * Reads ESTATE_DISCOVERY_HOST, ESTATE_DISCOVERY_PORT, ESTATE_DISCOVERY_GROUP, ESTATE_REGISTRY_URL,
 * ESTATE_DISCOVERY_SERVICE_TOKEN, ESTATE_REBUILD_TIMEOUT_MS, ESTATE_CATALOG_REPUBLISH_MS and the shared settings.
 */
export function loadDiscoveryConfig(env: Env): DiscoveryConfig {
  const reader = new EnvReader(env);
  return reader.finish({
    ...readCommon(reader),
    host: reader.string('ESTATE_DISCOVERY_HOST', '127.0.0.1'),
    port: reader.port('ESTATE_DISCOVERY_PORT', 8002),
    auth: readAuth(reader),
    groupId: reader.string('ESTATE_DISCOVERY_GROUP', 'estate-discovery'),
    registryUrl: reader.optional('ESTATE_REGISTRY_URL'),
    serviceToken: reader.optional('ESTATE_DISCOVERY_SERVICE_TOKEN'),
    rebuildTimeoutMs: reader.duration('ESTATE_REBUILD_TIMEOUT_MS', 120_000, { unit: 'ms', wholeFrom: 1 }),
    republishGapMs: republishGap(reader),
  });
}

function republishGap(reader: EnvReader): number {
  const raw = reader.string('ESTATE_CATALOG_REPUBLISH_MS', String(DEFAULT_REPUBLISH_GAP_MS));
  const ms = Number(raw);
  if (!/^\d+$/.test(raw) || ms > 60_000) reader.problems.push(`ESTATE_CATALOG_REPUBLISH_MS must be a whole number of milliseconds from 0 to 60000, got "${raw}"`);
  return /^\d+$/.test(raw) && ms <= 60_000 ? ms : DEFAULT_REPUBLISH_GAP_MS;
}
