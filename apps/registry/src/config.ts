import { EnvReader, readAuth, readCommon, type AuthConfig, type CommonConfig, type Env } from '@estate/platform';

export interface RegistryConfig extends CommonConfig {
  host: string;
  port: number;
  auth: AuthConfig;
}

/** Reads ESTATE_REGISTRY_HOST, ESTATE_REGISTRY_PORT and the shared settings; fails listing every problem. */
export function loadRegistryConfig(env: Env): RegistryConfig {
  const reader = new EnvReader(env);
  return reader.finish({
    ...readCommon(reader),
    host: reader.string('ESTATE_REGISTRY_HOST', '127.0.0.1'),
    port: reader.port('ESTATE_REGISTRY_PORT', 8001),
    auth: readAuth(reader),
  });
}
