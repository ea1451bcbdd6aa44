import { existsSync, readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { processAlive, readEstateRecord, type EstateRecord } from '@estate/platform';
import { runCommand, USAGE, type CliEnv } from './cli.commands';

const NAMES = [
  'sub', 'scope', 'tenant', 'clearance', 'audience', 'name', 'namespace', 'url', 'transport', 'command', 'owner',
  'reason', 'sunset-at', 'replacement', 'tool', 'version', 'principal', 'type', 'limit', 'cursor', 'from', 'to',
] as const;
const OPTIONS = Object.fromEntries(NAMES.map((n) => [n, { type: 'string' as const }]));

/** The `estate` command line: a thin client of the registry and audit REST APIs. */
export async function run(): Promise<void> {
  try {
    const [command, ...rest] = process.argv.slice(2);
    if (asksForHelp(process.argv.slice(2))) {
      process.stdout.write(`${USAGE}\n`);
      return;
    }
    const { values, positionals } = parseArgs({ args: rest, options: OPTIONS, strict: true, allowPositionals: true });
    const outcome = await runCommand(command, positionals, values, cliEnv(process.env));
    (outcome.ok ? process.stdout : process.stderr).write(`${outcome.output}\n`);
    process.exitCode = outcome.ok ? 0 : (outcome.exitCode ?? 1);
  } catch (error) {
    // The command could not be carried out (unreachable, an unreadable file, bad options): 2, not a refusal's 1.
    process.stderr.write(`estate: ${error instanceof Error ? error.message : String(error)}\n${isUsageError(error) ? `\n${USAGE}\n` : ''}`);
    process.exitCode = 2;
  }
}

/** `estate`, `estate help`, `-h` or `--help`, alone or after a command (before a `--`): usage, exit 0. */
export function asksForHelp(args: string[]): boolean {
  if (args.length === 0 || args[0] === 'help') return true;
  const options = args.includes('--') ? args.slice(0, args.indexOf('--')) : args;
  return options.some((arg) => arg === '--help' || arg === '-h');
}

/** parseArgs' own errors (an unknown option, a missing value): the usage follows them. */
function isUsageError(error: unknown): boolean {
  return typeof (error as { code?: unknown }).code === 'string' && (error as { code: string }).code.startsWith('ERR_PARSE_ARGS');
}

/**
 * The environment's URLs and secret; where it leaves one unset, the running `npm start` in
 * ESTATE_DATA_DIR (default .estate) supplies it, as it does for any process that joins it: its
 * services' URLs (whatever ports it chose) and its development secret, so `estate token` works
 * beside it without exporting anything. The usual local ports otherwise.
 */
export function cliEnv(env: NodeJS.ProcessEnv): CliEnv {
  const estate = runningEstate(env.ESTATE_DATA_DIR ?? '.estate');
  return {
    registryUrl: env.ESTATE_REGISTRY_URL ?? estate?.urls.registry ?? 'http://127.0.0.1:8001',
    auditUrl: env.ESTATE_AUDIT_URL ?? estate?.urls.audit ?? 'http://127.0.0.1:8003',
    discoveryUrl: env.ESTATE_DISCOVERY_URL ?? estate?.urls.discovery ?? 'http://127.0.0.1:8002',
    token: env.ESTATE_TOKEN,
    secret: env.ESTATE_JWT_SECRET ?? (estate?.secretFile && existsSync(estate.secretFile) ? readFileSync(estate.secretFile, 'utf8').trim() : undefined),
  };
}

/** The estate recorded in `dataDir` while its process lives; a missing or unreadable record is no estate. */
function runningEstate(dataDir: string): EstateRecord | undefined {
  try {
    const record = readEstateRecord(dataDir);
    return record && processAlive(record.pid) ? record : undefined;
  } catch {
    return undefined;
  }
}
