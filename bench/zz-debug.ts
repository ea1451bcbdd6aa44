import { createLogger, issueDevToken } from '@estate/platform';
import { BENCH_AGENT, benchCatalog, NOOP_ARGUMENTS, NOOP_TOOL } from './catalog.fixture';
import { acquireKafka } from './support/kafka.lease';
import { startBenchServer } from './support/child-process.launcher';
import { BENCH_SECRET, benchTopicPrefix, feedCatalog, startEdgeChild } from './support/edge.launcher';
import { concurrentThroughput } from './support/load.runner';
import { McpHttpSession } from './support/mcp-http.client';

async function main() {
  const kafka = await acquireKafka(); const brokers = kafka.brokers;
  const upstream = await startBenchServer('noop-upstream.server.ts', { BENCH_LIST_TOOLS: '200' });
  const prefix = benchTopicPrefix();
  await feedCatalog(brokers, prefix, benchCatalog(1000, upstream.url), createLogger('x', 'warn'));
  const token = await issueDevToken(BENCH_SECRET, BENCH_AGENT);
  const t0 = Date.now();
  const edge = await startEdgeChild(brokers, prefix, 1000, process.argv.includes('--prof') ? ['--cpu-prof', '--cpu-prof-dir=/tmp/profx'] : []);
  console.log('edge up in', Date.now() - t0);
  try {
    const sessions = await Promise.all(Array.from({ length: 32 }, () => McpHttpSession.open(edge.mcpUrl, token)));
    const ds = await Promise.all(Array.from({ length: 32 }, () => McpHttpSession.open(upstream.url)));
    console.log('direct', await concurrentThroughput(ds.map((s) => () => s.expect('tools/call', { name: 'noop', arguments: NOOP_ARGUMENTS })), { count: 5000, maxMs: 3000, warmUp: 3 }));
    const one = sessions[0]; const tt: number[] = [];
    for (let i = 0; i < 30; i++) { const a = performance.now(); await one.expect('tools/call', { name: NOOP_TOOL, arguments: NOOP_ARGUMENTS }); tt.push(performance.now() - a); }
    console.log('seq edge', tt.map((x) => x.toFixed(1)).join(' '));
    const t = Date.now();
    const r = await concurrentThroughput(sessions.map((s) => () => s.expect('tools/call', { name: NOOP_TOOL, arguments: NOOP_ARGUMENTS })), { count: 5000, maxMs: 4000, warmUp: 3 });
    console.log('call', r, Date.now() - t);
    const r2 = await concurrentThroughput(sessions.map((s) => () => s.expect('tools/list', {})), { count: 2000, maxMs: 4000, warmUp: 3 });
    console.log('list', r2);
  } catch (e) {
    console.log(String(e));
    console.log(edge.child.output().slice(-3000));
  } finally {
    await edge.child.stop();
    await upstream.child.stop();
    await kafka.release();
  }
}
void main();
