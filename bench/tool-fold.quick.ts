/**
 * What a cold registry pays to load a long-lived tool: `node -r @swc-node/register bench/tool-fold.quick.ts [versions,...]`
 * (default 1000,5000,10000). Folds a stream of that many published versions, plus a deprecation of
 * every tenth, into the tool's state as the command handler does after a restart (evolveToolAll),
 * and the same history one event at a time (each evolve copies the versions map) as the baseline
 * in the same run. Prints milliseconds per fold; writes nothing.
 */
import type { ToolSpec } from '@estate/contracts';
import { evolveTool, evolveToolAll, initialToolState, latestVersion, type ToolEvent, type ToolState } from '../apps/registry/src/domain/tool.decider';
import { runBench } from './support/bench.cli';

function history(versions: number): ToolEvent[] {
  const events: ToolEvent[] = [];
  for (let i = 0; i < versions; i += 1) {
    const spec = { name: 'bench.tool', version: `1.${i}.0` } as ToolSpec;
    events.push({ type: 'ToolVersionPublished', version: 1, data: { spec, bump: 'minor', changes: [] } });
    if (i % 10 === 9) events.push({ type: 'ToolVersionDeprecated', version: 1, data: { name: 'bench.tool', version: `1.${i - 5}.0`, reason: 'bench' } });
  }
  return events;
}

function timed(fold: () => ToolState): { ms: number; state: ToolState } {
  const started = performance.now();
  const state = fold();
  return { ms: performance.now() - started, state };
}

async function main(): Promise<void> {
  const sizes = (process.argv[2] ?? '1000,5000,10000').split(',').map(Number);
  process.stdout.write('| versions | events | one event at a time (ms) | evolveToolAll (ms) | ratio |\n| --- | --- | --- | --- | --- |\n');
  for (const versions of sizes) {
    const events = history(versions);
    const stepwise = timed(() => events.reduce(evolveTool, initialToolState()));
    const folded = timed(() => evolveToolAll(initialToolState(), events));
    if (latestVersion(folded.state) !== latestVersion(stepwise.state) || folded.state.versions.size !== stepwise.state.versions.size) throw new Error('the two folds disagree');
    process.stdout.write(`| ${versions} | ${events.length} | ${stepwise.ms.toFixed(1)} | ${folded.ms.toFixed(1)} | ${(stepwise.ms / folded.ms).toFixed(0)} |\n`);
  }
}

runBench(main);
