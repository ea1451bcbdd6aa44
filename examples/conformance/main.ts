/**
 * The conformance fixture upstream, from the command line.
 *
 *   node -r @swc-node/register examples/conformance/main.ts --port 9200
 *   node dist/examples/conformance/main.js --port 9200
 *
 * Register it with an empty namespace (POST /v1/servers, estate:admin) and publish
 * conformanceSpecs() so the suite's bare tool names resolve through the edge.
 */
import { startConformanceServer } from './conformance.server';

function flag(args: string[], name: string): string | undefined {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
}

async function main(argv: string[]): Promise<void> {
  const port = Number(flag(argv, '--port') ?? process.env.CONFORMANCE_PORT ?? 9200);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`invalid port: ${port}`);
  const fixture = await startConformanceServer({ port, host: flag(argv, '--host') ?? '127.0.0.1' });
  const stop = () => void fixture.close().then(() => process.exit(0), () => process.exit(1));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main(process.argv.slice(2)).catch((err: unknown) => {
  process.stderr.write(`conformance fixture: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
