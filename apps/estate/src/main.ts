import { releaseEarlySignals } from './early-signals';
import 'reflect-metadata';
import path from 'node:path';
import { createLogger, failBoot, holdStopSignals, issueDevToken, startTracing, stopOnSignals, type Logger } from '@estate/platform';
import { loadEstateConfig, type EmbeddedConfig } from './config';
import { seedDemo } from './demo.seed';
import { startEmbedded, type EmbeddedEstate } from './embedded';

const ADMIN = { sub: 'platform-admin', scope: 'estate:admin estate:publish estate:audit', clearance: 'restricted' };
const AGENT = { sub: 'support-agent', scope: 'bank:read', clearance: 'internal' };

const BUS_LINE = { kafka: 'Kafka (KAFKA_BROKERS)', postgres: 'durable log in PostgreSQL (schema bus)' } as const;
/** dist/apps/estate/src → dist/apps/cli/src/main.js: what a desktop client spawns for `estate stdio`. */
const CLI = path.resolve(__dirname, '..', '..', 'cli', 'src', 'main.js');

/** A desktop client's stdio entry: the CLI finds this estate (its log, brokers and secret) through ESTATE_DATA_DIR. */
function stdioConfig(estate: EmbeddedEstate, agentToken: string): string[] {
  const env = { ESTATE_STDIO_TOKEN: agentToken, ESTATE_DATA_DIR: path.dirname(estate.recordFile) };
  const config = { mcpServers: { 'estate-stdio': { command: process.execPath, args: [CLI, 'stdio'], env } } };
  return ['', 'Desktop client (stdio) configuration, joining this estate (or command "npx" with args ["estate", "stdio"]):', JSON.stringify(config, null, 2)];
}

async function banner(estate: EmbeddedEstate, adminToken?: string, agentToken?: string): Promise<string> {
  const lines = [
    '',
    'Estate is running (all four services in one process)',
    `  MCP edge   ${estate.urls.edge}`,
    `  registry   ${estate.urls.registry}   (REST, /openapi.json)`,
    `  discovery  ${estate.urls.discovery}`,
    `  audit      ${estate.urls.audit}   (GET /v1/audit, /v1/events/stream)`,
    `  console    ${estate.urls.console}   (web console: sign in with a token below)`,
    `  bus: ${BUS_LINE[estate.bus]}; database: ${estate.database}`,
    `  other processes join it through ${estate.recordFile}`,
  ];
  if (adminToken && agentToken) {
    const config = { mcpServers: { estate: { type: 'http', url: estate.urls.edge, headers: { Authorization: `Bearer ${agentToken}` } } } };
    lines.push(
      '',
      `Development tokens (HS256, ${Math.round((estate.devTokenSeconds / 3600) * 10) / 10} h):`,
      `  admin (estate:admin estate:publish estate:audit):\n    ${adminToken}`,
      `  agent (bank:read, clearance internal):\n    ${agentToken}`,
      '',
      'MCP client configuration for the agent:',
      JSON.stringify(config, null, 2),
      ...stdioConfig(estate, agentToken),
      '',
      `Try: curl -s -H "Authorization: Bearer $ADMIN" ${estate.urls.audit}/v1/audit | head`,
    );
  }
  lines.push('', 'Ctrl-C stops everything cleanly.', '');
  return lines.join('\n');
}

/** The development tokens and the demo, once the services are up. */
async function finishStart(estate: EmbeddedEstate, embedded: EmbeddedConfig, logger: Logger) {
  const secret = estate.secret ?? process.env.ESTATE_JWT_SECRET;
  const options = { audience: process.env.ESTATE_JWT_AUDIENCE, expiresIn: `${estate.devTokenSeconds}s` };
  const adminToken = secret ? await issueDevToken(secret, ADMIN, options) : undefined;
  const agentToken = secret ? await issueDevToken(secret, AGENT, options) : undefined;
  const bank = embedded.demo && adminToken ? await seedDemo(estate.urls.registry, adminToken, embedded.bankPort, logger) : undefined;
  return { adminToken, agentToken, bank };
}

async function main(): Promise<void> {
  // LOG_LEVEL is not read yet: pino throws on a level it does not know, before the config could list it.
  let logger = createLogger('estate');
  // A signal during the start (services half up) is held, and sent again once the stop is wired;
  // one that came while the modules loaded is handed over to that hold.
  const release = holdStopSignals();
  const early = releaseEarlySignals();
  if (early) process.kill(process.pid, early);
  try {
    const embedded = loadEstateConfig(process.env);
    logger = createLogger('estate', embedded.logLevel, { format: embedded.logFormat });
    const tracing = startTracing(process.env, 'estate');
    const estate = await startEmbedded(process.env, embedded, logger);
    // From here a failure stops what started: exiting without it left estate.json and pg.owner.json behind.
    const { adminToken, agentToken, bank } = await finishStart(estate, embedded, logger).catch(async (error: unknown) => {
      await estate.stop().catch(() => undefined);
      throw error;
    });
    // Wired before the banner: whoever reads it may signal at once, before this process runs again.
    stopOnSignals(logger, async () => {
      await estate.stop();
      await bank?.close();
      await tracing?.shutdown();
    });
    process.stdout.write(await banner(estate, adminToken, agentToken));
    release();
  } catch (error) {
    failBoot(logger, error);
  }
}

void main();
