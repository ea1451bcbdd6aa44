import { measureNotify } from './notify.bench';
import { startBenchServer } from './support/child-process.launcher';
import { acquireKafka } from './support/kafka.lease';

async function main() {
  const kafka = await acquireKafka();
  const upstream = await startBenchServer('noop-upstream.server.ts');
  try {
    const t = Date.now();
    console.log(JSON.stringify(await measureNotify(process.argv.includes('--mem') ? undefined : kafka.brokers, upstream.url)), Date.now() - t);
  } catch (e) { console.log(e); } finally {
    await upstream.child.stop();
    await kafka.release();
  }
}
void main();
