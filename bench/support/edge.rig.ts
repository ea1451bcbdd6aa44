import { createLogger, issueDevToken } from '@estate/platform';
import { BENCH_AGENT, benchCatalog } from '../catalog.fixture';
import { startBenchServer, type BenchChild } from './child-process.launcher';
import { BENCH_SECRET, benchTopicPrefix, feedCatalog, startEdgeChild, type EdgeChild } from './edge.launcher';
import { acquireKafka } from './kafka.lease';
import { loadAgent } from './mcp-http.client';

/** What an edge bench runs against: a broker, a catalog of `tools` on its topics, the zero-work upstream and the agent's token. */
export interface EdgeRig {
  brokers: string[];
  prefix: string;
  upstream: { child: BenchChild; url: string };
  token: string;
  /** An edge on the rig's catalog (from another build with `distDir`); stopped with the rig. */
  startEdge(nodeFlags?: string[], distDir?: string): Promise<EdgeChild>;
}

/** Sets up the rig, runs `work` on it, and takes it down again, edges included, whatever happened. Shared by the single-figure edge runners. */
export async function withEdgeRig<T>(tools: number, work: (rig: EdgeRig) => Promise<T>): Promise<T> {
  const kafka = await acquireKafka();
  const upstream = await startBenchServer('noop-upstream.server.ts', { BENCH_LIST_TOOLS: String(tools) });
  const edges: EdgeChild[] = [];
  try {
    const prefix = benchTopicPrefix();
    await feedCatalog(kafka.brokers, prefix, benchCatalog(tools, upstream.url), createLogger('bench', 'warn'));
    const token = await issueDevToken(BENCH_SECRET, BENCH_AGENT);
    const startEdge = async (nodeFlags: string[] = [], distDir?: string) => {
      const edge = await startEdgeChild(kafka.brokers, prefix, tools, nodeFlags, distDir);
      edges.push(edge);
      return edge;
    };
    return await work({ brokers: kafka.brokers, prefix, upstream, token, startEdge });
  } finally {
    for (const edge of edges) await edge.child.stop();
    await upstream.child.stop();
    loadAgent.destroy();
    await kafka.release();
  }
}
