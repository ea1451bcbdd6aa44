/**
 * The bank sample upstream, from the command line.
 *
 *   node -r @swc-node/register examples/bank/main.ts            # Streamable HTTP on 127.0.0.1:9100/mcp
 *   node -r @swc-node/register examples/bank/main.ts --stdio    # stdio (logs on stderr only)
 *   node dist/examples/bank/main.js --port 9100 --host 0.0.0.0  # built (docker compose)
 *   node dist/examples/bank/main.js --specs <dir>               # write its tool specs as JSON, for `estate publish`
 *
 * Environment: BANK_PORT (9100), BANK_HOST (127.0.0.1), LOG_LEVEL (info). Flags win over env.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { bankLogger, createBankMcpServer, startBankServer } from './bank.server';
import { bankSpecs } from './bank.specs';

function flag(args: string[], name: string): string | undefined {
  const i = args.indexOf(name);
  if (i >= 0) return args[i + 1];
  const eq = args.find((a) => a.startsWith(`${name}=`));
  return eq?.slice(name.length + 1);
}

async function main(argv: string[]): Promise<void> {
  const log = bankLogger(process.env.LOG_LEVEL ?? 'info');
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stderr.write('usage: bank [--stdio] [--port N] [--host H] [--specs DIR]\n');
    return;
  }
  const specsDir = flag(argv, '--specs');
  if (specsDir) {
    // One file per tool, named by the tool, so `estate publish <file>` can seed a registry.
    await mkdir(specsDir, { recursive: true });
    for (const spec of bankSpecs('bank')) {
      const file = path.join(specsDir, `${spec.name}.json`);
      await writeFile(file, `${JSON.stringify(spec, null, 2)}\n`);
      process.stdout.write(`${file}\n`);
    }
    return;
  }
  if (argv.includes('--stdio')) {
    const server = createBankMcpServer(log);
    const transport = new StdioServerTransport();
    transport.onclose = () => process.exit(0);
    await server.connect(transport);
    log.info('bank serving MCP over stdio');
    return;
  }
  const port = Number(flag(argv, '--port') ?? process.env.BANK_PORT ?? 9100);
  const host = flag(argv, '--host') ?? process.env.BANK_HOST ?? '127.0.0.1';
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`invalid port: ${port}`);
  const bank = await startBankServer({ port, host, logger: log });
  const stop = (signal: string) => {
    log.info({ signal }, 'shutting down');
    bank.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGINT', () => stop('SIGINT'));
  process.once('SIGTERM', () => stop('SIGTERM'));
}

main(process.argv.slice(2)).catch((err: unknown) => {
  process.stderr.write(`bank: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
