import { COMPAT_POLICIES, DEFAULT_COMPAT_POLICY, type CompatPolicy } from '@estate/contracts';
import { EnvReader, readAuth, readCommon, type AuthConfig, type CommonConfig, type Env } from '@estate/platform';

export interface RegistryConfig extends CommonConfig {
  host: string;
  port: number;
  auth: AuthConfig;
  /** How often deprecated versions past their sunset date are retired. */
  sunsetSweepMs: number;
  /** ESTATE_COMPAT: how literally publish reads the who-breaks rule (see compat.policy.ts in @estate/contracts). */
  compat: CompatPolicy;
}

/** Reads ESTATE_REGISTRY_HOST, ESTATE_REGISTRY_PORT and the shared settings; fails listing every problem. */
export function loadRegistryConfig(env: Env): RegistryConfig {
  const reader = new EnvReader(env);
  return reader.finish({
    ...readCommon(reader),
    host: reader.string('ESTATE_REGISTRY_HOST', '127.0.0.1'),
    port: reader.port('ESTATE_REGISTRY_PORT', 8001),
    auth: readAuth(reader),
    sunsetSweepMs: reader.duration('ESTATE_SUNSET_SWEEP_SECONDS', 60, { unit: 's' }),
    compat: reader.oneOf('ESTATE_COMPAT', COMPAT_POLICIES, DEFAULT_COMPAT_POLICY),
  });
}
