import { EnvReader, type Env } from '@estate/platform';
import { loadEdgeConfig, type EdgeConfig } from '../config';

export interface StdioEdgeConfig extends EdgeConfig {
  /** The JWT that names the principal of the one stdio session (absent only with ESTATE_AUTH=none). */
  token?: string;
}

/** The edge's configuration plus ESTATE_STDIO_TOKEN, required unless ESTATE_AUTH=none. */
export function loadStdioConfig(env: Env): StdioEdgeConfig {
  const config = loadEdgeConfig(env);
  const reader = new EnvReader(env);
  const token = reader.optional('ESTATE_STDIO_TOKEN');
  if (config.auth.mode === 'jwt' && token === undefined) reader.problems.push('set ESTATE_STDIO_TOKEN (a JWT naming the principal), or ESTATE_AUTH=none for local use');
  return reader.finish({ ...config, token });
}
