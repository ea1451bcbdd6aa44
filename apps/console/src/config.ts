import { EnvReader, type Env } from '@estate/platform';

/** Where the console listens and the three services it talks to on the browser's behalf. */
export interface ConsoleConfig {
  host: string;
  port: number;
  logLevel: string;
  upstreams: { registry: string; discovery: string; audit: string };
}

/** The base URLs the embedded launcher or a test already knows; they win over the environment. */
export type ConsoleUpstreams = Partial<ConsoleConfig['upstreams']>;

function baseUrl(reader: EnvReader, name: string, fallback: string): string {
  const raw = reader.string(name, fallback);
  try {
    const url = new URL(raw);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('not http');
    return raw.replace(/\/+$/, '');
  } catch {
    reader.problems.push(`${name} must be an http(s) URL, got "${raw}"`);
    return fallback;
  }
}

/** Reads ESTATE_CONSOLE_HOST, ESTATE_CONSOLE_PORT (8004), ESTATE_REGISTRY_URL, ESTATE_DISCOVERY_URL, ESTATE_AUDIT_URL. */
export function loadConsoleConfig(env: Env): ConsoleConfig {
  const reader = new EnvReader(env);
  return reader.finish({
    host: reader.string('ESTATE_CONSOLE_HOST', '127.0.0.1'),
    port: reader.port('ESTATE_CONSOLE_PORT', 8004),
    logLevel: reader.oneOf('LOG_LEVEL', ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], 'info'),
    upstreams: {
      registry: baseUrl(reader, 'ESTATE_REGISTRY_URL', 'http://127.0.0.1:8001'),
      discovery: baseUrl(reader, 'ESTATE_DISCOVERY_URL', 'http://127.0.0.1:8002'),
      audit: baseUrl(reader, 'ESTATE_AUDIT_URL', 'http://127.0.0.1:8003'),
    },
  });
}
