import { parseArgs } from 'node:util';
import { runCommand, USAGE } from './cli.commands';

const NAMES = [
  'sub', 'scope', 'tenant', 'clearance', 'audience', 'name', 'namespace', 'url', 'transport', 'command', 'owner',
  'reason', 'sunset-at', 'replacement', 'tool', 'version', 'principal', 'type', 'limit', 'cursor', 'from', 'to',
] as const;
const OPTIONS = Object.fromEntries(NAMES.map((n) => [n, { type: 'string' as const }]));

/** The `estate` command line: a thin client of the registry and audit REST APIs. */
export async function run(): Promise<void> {
  try {
    const [command, ...rest] = process.argv.slice(2);
    if (!command || command === '--help' || command === 'help') {
      process.stdout.write(`${USAGE}\n`);
      return;
    }
    const { values, positionals } = parseArgs({ args: rest, options: OPTIONS, strict: true, allowPositionals: true });
    const outcome = await runCommand(command, positionals, values, {
      registryUrl: process.env.ESTATE_REGISTRY_URL ?? 'http://127.0.0.1:8001',
      auditUrl: process.env.ESTATE_AUDIT_URL ?? 'http://127.0.0.1:8003',
      discoveryUrl: process.env.ESTATE_DISCOVERY_URL ?? 'http://127.0.0.1:8002',
      token: process.env.ESTATE_TOKEN,
      secret: process.env.ESTATE_JWT_SECRET,
    });
    (outcome.ok ? process.stdout : process.stderr).write(`${outcome.output}\n`);
    process.exitCode = outcome.ok ? 0 : 1;
  } catch (error) {
    process.stderr.write(`estate: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  }
}
