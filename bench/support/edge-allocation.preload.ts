/**
 * Preloaded into an edge child (`-r @swc-node/register -r bench/support/edge-allocation.preload.ts`):
 * the first SIGUSR2 starts V8's sampling heap profiler counting every allocation, including what
 * minor and major GCs collected since (a plain --heap-prof keeps only what is still alive at exit,
 * which misses the short-lived garbage that sets how often the edge pauses to scavenge); the
 * second writes the profile to EDGE_ALLOCATION_PROFILE. Bench-only: nothing in apps/ loads it.
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';

const session = new Session();
session.connect();
let sampling = false;

process.on('SIGUSR2', () => {
  if (!sampling) {
    sampling = true;
    session.post('HeapProfiler.startSampling', { samplingInterval: 1024, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: process.env.EDGE_ALLOCATION_MINOR !== 'no' } as object);
    return;
  }
  sampling = false;
  session.post('HeapProfiler.stopSampling', (error, result) => {
    if (error) process.stderr.write(`allocation profile failed: ${error.message}\n`);
    else writeFileSync(process.env.EDGE_ALLOCATION_PROFILE ?? 'edge.heapprofile', JSON.stringify(result.profile));
    process.stderr.write('edge-allocation written\n');
  });
});
