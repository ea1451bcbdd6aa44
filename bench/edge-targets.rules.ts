import type { EdgeFigures } from './edge.bench';
import { BURST_SESSIONS } from './edge-burst.bench';
import { CATALOG_SIZE, PASSTHROUGH_SESSIONS, SESSIONS } from './edge.bench';
import { CONCURRENCY } from './edge-traffic.bench';
import type { NotifyFigures } from './notify.bench';
import { verdict, type Verdict } from './report.writer';
import { round } from './support/load.runner';

/** Issue 10's edge targets, each beside the baseline measured in the same run. */
export function edgeVerdicts(edge: EdgeFigures, notify: NotifyFigures[]): Verdict[] {
  const t = edge.traffic;
  return [
    verdict('tools/call added latency p50 (edge − direct)', t.call.edge.p50 - t.call.direct.p50, { max: 0.25 }, ' ms', `direct p50 ${round(t.call.direct.p50)} ms; SDK pass-through adds ${round(t.call.passthrough.p50 - t.call.direct.p50)} ms`),
    verdict('tools/call added latency p99 (edge − direct)', t.call.edge.p99 - t.call.direct.p99, { max: 1 }, ' ms', `direct p99 ${round(t.call.direct.p99)} ms; SDK pass-through adds ${round(t.call.passthrough.p99 - t.call.direct.p99)} ms`),
    verdict('tools/call added server CPU per call (edge path − direct path, 32-way run)', t.callCpu.edge - t.callCpu.direct, { max: 0.15 }, ' ms', `direct ${round(t.callCpu.direct, 2)} ms CPU/call; SDK pass-through adds ${round(t.callCpu.passthrough - t.callCpu.direct, 2)} ms — the p50 target's floor on an idle machine`),
    verdict(`tools/call throughput at ${CONCURRENCY} concurrent, edge / direct`, t.callThroughput.edge.perSecond / t.callThroughput.direct.perSecond, { min: 0.6 }, '×', `direct ${Math.round(t.callThroughput.direct.perSecond)} req/s; SDK pass-through ${round(t.callThroughput.passthrough.perSecond / t.callThroughput.direct.perSecond, 2)}×`),
    verdict(`filtered tools/list p99, ${CATALOG_SIZE} tools`, t.list.edge.p99, { max: 2 }, ' ms', `upstream's static ${t.listedTools.direct}-tool page p99 ${round(t.list.direct.p99)} ms`),
    verdict('publish → list_changed p99 through Kafka', notify[0].latency.p99, { max: 50 }, ' ms', `in-process bus p99 ${round(notify[1].latency.p99, 1)} ms`),
    verdict(`${BURST_SESSIONS} sessions calling at once, p99`, edge.burst.edge.latency.p99, { max: 25 }, ' ms', `direct p99 ${round(edge.burst.direct.latency.p99)} ms; edge errors: ${edge.burst.edge.errors}${edge.burst.edge.firstError ? ` (first: ${edge.burst.edge.firstError.slice(0, 80)})` : ''}`),
    verdict(`${BURST_SESSIONS} sessions calling at once, errors`, edge.burst.edge.errors, { max: 0 }, '', `${edge.burst.edge.latency.samples} calls answered`),
    verdict(`edge RSS with ${SESSIONS} open sessions`, edge.edgeMemory.rssAfterMb, { max: 500 }, ' MB', `SDK pass-through ${round(edge.passthroughMemory.rssAfterMb, 1)} MB with ${PASSTHROUGH_SESSIONS} (${round(edge.passthroughMemory.perSessionKb, 1)} KB each, edge ${round(edge.edgeMemory.perSessionKb, 1)} KB); edge at start ${round(edge.idleRssMb, 1)} MB, after the load ${round(edge.loadedRssMb, 1)} MB`),
  ];
}

/** How every figure was produced, for the reader of BENCHMARKS.md. */
export function methodNotes(): string[] {
  return [
    'Load comes from a raw keep-alive HTTP client (node:http, bench/support/mcp-http.client.ts) that posts JSON-RPC and reads the SSE answer; every loop stops at a count or a time limit; everything listens on 127.0.0.1.',
    'Upstream: bench/noop-upstream.server.ts, the SDK low-level Server over Streamable HTTP whose `noop` tool answers at once, in its own process. "Direct" calls it straight; the SDK pass-through (bench/sdk-passthrough.server.ts, SDK Server + SDK Client, nothing else) and the edge sit in front of it, each in its own process.',
    `The edge runs from dist/apps/mcp-edge/src/main.js as a child process on Kafka. Its catalog (${CATALOG_SIZE} tools, two versions each, hidden from the caller by scope, tenant or classification in 5 of 8 cases) is fed directly onto its \`estate.catalog\` topic, the way discovery republishes it; the registry is not involved in the list and call figures.`,
    'The upstream advertises exactly what the catalog publishes (all tools, in pages of 200 like the edge), so the edge\'s drift check agrees and quarantines nothing; the direct list baseline is its first page.',
    'Server CPU per request: user + system time from /proc/<pid>/stat of every server process on the path (edge + upstream, pass-through + upstream, upstream alone) over the 32-way run, divided by the requests served. Unlike latency it barely moves with the machine\'s load, so it is the figure to trust on a busy machine.',
    `Sequential latency: 4 interleaved rounds per subject (direct, pass-through, edge) so noise lands on all alike (a tools/list is timed from its send to the last byte of its page, before the client parses the 56 KB of JSON); throughput: ${CONCURRENCY} sessions, one request in flight each. Added latency = edge percentile − direct percentile.`,
    'The edge validates the arguments against the tool contract, resolves the version for the principal, checks the bearer token on every request, runs its policy (rate limits raised to 10^8/min so the one bench principal is never refused, but still evaluated) and records every call on Kafka; the pass-through does none of that. A failed or refused request counts in `errors`, never in req/s.',
    `Sessions: ${SESSIONS} sessions at the edge, ${PASSTHROUGH_SESSIONS} at the pass-through (its per-session cost is the baseline), opened as an SDK client would (initialize, initialized, GET stream kept open) on fresh processes, before any load; RSS read from /proc/<pid>/status of the server process.`,
    `Sessions calling at once: a client in its own process (bench/edge-burst.client.ts) opens ${BURST_SESSIONS} sessions and one raw keep-alive socket per session before anything is timed, then writes every session's pre-built tools/call back to back, one warm-up round then 3 measured rounds; each call is timed from its own write to the last byte of its answer, and the client's own CPU per call and the time it took to write a round are reported beside the servers'. The same against the upstream directly is the baseline; on a 2-core machine shared by client, edge and upstream, the direct figure is the floor.`,
    'publish → list_changed: the whole estate from dist/apps/estate/src/main.js (registry, discovery, audit, edge in one child, embedded PostgreSQL), once on Kafka and once on the in-process bus; an official SDK client listens; one publish (POST /v1/tools of a new visible tool) at a time, timed from the POST to the notification. Hops (bench/notify-hops.ts): the relay\'s and discovery\'s record create times read back from Kafka, discovery\'s `registry event applied` and the edge\'s `catalog record received` debug lines and its `tools/list_changed sent` line (the estate runs with LOG_LEVEL=debug there); millisecond clocks of one machine.',
    'CPU profiles come from separate edge runs under `node --cpu-prof`, so the measured runs carry no profiler overhead.',
    ];
}
