import { EnvReader, readAuth, readCommon, type AuthConfig, type CommonConfig, type Env } from '@estate/platform';

export interface DiscoveryConfig extends CommonConfig {
  host: string;
  port: number;
  auth: AuthConfig;
  /** Consumer group for estate.registry.events; positions live in PostgreSQL, not in Kafka. */
  groupId: string;
}

/** Reads ESTATE_DISCOVERY_HOST, ESTATE_DISCOVERY_PORT, ESTATE_DISCOVERY_GROUP and the shared settings. */
export function loadDiscoveryConfig(env: Env): DiscoveryConfig {
  const reader = new EnvReader(env);
  return reader.finish({
    ...readCommon(reader),
    host: reader.string('ESTATE_DISCOVERY_HOST', '127.0.0.1'),
    port: reader.port('ESTATE_DISCOVERY_PORT', 8002),
    auth: readAuth(reader),
    groupId: reader.string('ESTATE_DISCOVERY_GROUP', 'estate-discovery'),
  });
}
