/**
 * `node -r @swc-node/register bench/edge-latency.allocation.ts [--op call|list] [--count n] [--promoted] [--dist <dir>]`:
 * bytes the edge allocates per sequential request, by allocation site (V8's sampling heap
 * profiler in the edge child, bench/support/edge-allocation.preload.ts). Allocation per request
 * sets how often the edge stops to scavenge; with `--promoted` only what outlived the minor GCs is
 * counted, which is what grows the old generation and brings on the longer major GCs.
 */
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { NOOP_ARGUMENTS, NOOP_TOOL } from './catalog.fixture';
import { CATALOG_SIZE } from './edge.bench';
import { option, runBench } from './support/bench.cli';
import { waitUntil } from './support/child-process.launcher';
import { withEdgeRig } from './support/edge.rig';
import { loadAgent, McpHttpSession } from './support/mcp-http.client';

interface ProfileNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: ProfileNode[];
}

function bySite(node: ProfileNode, sites: Map<string, number>): Map<string, number> {
  const { functionName, url, lineNumber } = node.callFrame;
  const where = url.replace(/.*node_modules\//, '').replace(/.*dist\//, '');
  const site = `${functionName || '(anonymous)'} ${where}:${lineNumber + 1}`;
  sites.set(site, (sites.get(site) ?? 0) + node.selfSize);
  for (const child of node.children) bySite(child, sites);
  return sites;
}

async function main(): Promise<void> {
  const op = option('--op') ?? 'call';
  const count = Number(option('--count') ?? 3000);
  const out = path.join(os.tmpdir(), `edge-allocation-${process.pid}.heapprofile`);
  process.env.EDGE_ALLOCATION_PROFILE = out;
  if (process.argv.includes('--promoted')) process.env.EDGE_ALLOCATION_MINOR = 'no';
  await withEdgeRig(CATALOG_SIZE, async ({ token, startEdge }) => {
    const edge = await startEdge(['-r', '@swc-node/register', '-r', path.join(__dirname, 'support', 'edge-allocation.preload.ts')], option('--dist'));
    const session = await McpHttpSession.open(edge.mcpUrl, token);
    const once = () => (op === 'list' ? session.expect('tools/list', {}) : session.expect('tools/call', { name: NOOP_TOOL, arguments: NOOP_ARGUMENTS }));
    for (let i = 0; i < 1000; i += 1) await once();
    process.kill(edge.child.pid, 'SIGUSR2');
    for (let i = 0; i < count; i += 1) await once();
    process.kill(edge.child.pid, 'SIGUSR2');
    await waitUntil(async () => (edge.child.output().includes('edge-allocation written') ? true : undefined), 'the allocation profile', 30_000);
    const sites = bySite((JSON.parse(readFileSync(out, 'utf8')) as { head: ProfileNode }).head, new Map());
    const total = [...sites.values()].reduce((a, b) => a + b, 0);
    const top = [...sites.entries()].sort((a, b) => b[1] - a[1]).slice(0, 25).map(([site, bytes]) => ({ site, bytesPerRequest: Math.round(bytes / count) }));
    process.stdout.write(`${JSON.stringify({ op, requests: count, bytesPerRequest: Math.round(total / count), top }, null, 1)}\n`);
    loadAgent.destroy();
  });
}

runBench(main);
