import { Kafka, logLevel } from 'kafkajs';
import { ADMIN, http, spawnService, token, waitFor, type ChildService } from './estate.harness';
import { freePort, kafkaBrokers } from './infra';

export type FleetService = 'discovery' | 'audit' | 'mcp-edge';

const PORT_SETTING: Record<FleetService, string> = {
  discovery: 'ESTATE_DISCOVERY_PORT',
  audit: 'ESTATE_AUDIT_PORT',
  'mcp-edge': 'ESTATE_EDGE_PORT',
};

/** One copy of a service: its own process and port, everything else shared with its siblings. */
export interface ServiceCopy {
  service: FleetService;
  url: string;
  child: ChildService;
  pid: number;
}

/**
 * Starts `count` copies of a built service (dist/apps/<service>/src/main.js) on the same env,
 * each on a port of its own, all at once (as a scheduler starting replicas would), and waits
 * until every one answers /healthz. A copy that does not come up fails with its output.
 */
export async function startCopies(service: FleetService, count: number, env: Record<string, string>): Promise<ServiceCopy[]> {
  const copies = await Promise.all(Array.from({ length: count }, async () => {
    const port = await freePort();
    const child = spawnService(`apps/${service}/src/main.js`, { ...env, [PORT_SETTING[service]]: String(port) });
    return { service, url: `http://127.0.0.1:${port}`, child, pid: child.process.pid ?? 0 };
  }));
  try {
    await Promise.all(copies.map((copy) => {
      // A copy that exits while starting fails the start at once, with its own words.
      const exited = new Promise<never>((_, reject) => copy.child.process.once('exit', (code, signal) => reject(new Error(`${service} exited (${code ?? signal}) while starting:\n${copy.child.output().slice(-2000)}`))));
      exited.catch(() => undefined); // a later, deliberate stop is no failure
      return Promise.race([exited, waitFor(async () => ((await fetch(`${copy.url}/healthz`)).ok ? true : undefined), `${service} at ${copy.url} to answer /healthz`, 60000)]);
    }));
  } catch (error) {
    await Promise.all(copies.map((copy) => copy.child.stop()));
    throw error;
  }
  return copies;
}

/** Asks the broker which copy (by the pid in its Kafka client id) holds each partition of `topic` for `groupId`. */
export async function partitionHolders(groupId: string, topic: string): Promise<Map<number, number>> {
  const admin = new Kafka({ clientId: 'scale-out-e2e', brokers: kafkaBrokers(), logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  try {
    const { groups } = await admin.describeGroups([groupId]);
    const holders = new Map<number, number>();
    for (const member of groups[0]?.members ?? []) {
      const pid = Number(/-(\d+)$/.exec(member.clientId)?.[1]);
      const assignment = decodeAssignment(member.memberAssignment);
      for (const partition of assignment.get(topic) ?? []) holders.set(partition, pid);
    }
    return holders;
  } finally {
    await admin.disconnect();
  }
}

/** A consumer-protocol MemberAssignment: version, then [topic, [partition]] arrays (big-endian). */
function decodeAssignment(buffer: Buffer): Map<string, number[]> {
  const topics = new Map<string, number[]>();
  if (buffer.length < 6) return topics;
  let at = 2;
  const count = buffer.readInt32BE(at);
  at += 4;
  for (let t = 0; t < count; t += 1) {
    const length = buffer.readInt16BE(at);
    at += 2;
    const name = buffer.toString('utf8', at, at + length);
    at += length;
    const partitions: number[] = [];
    const n = buffer.readInt32BE(at);
    at += 4;
    for (let p = 0; p < n; p += 1, at += 4) partitions.push(buffer.readInt32BE(at));
    topics.set(name, partitions);
  }
  return topics;
}

/** Every entry of the audit trail, page by page (newest first), as the API gives them. */
export async function auditTrail(auditUrl: string): Promise<Array<{ eventId: string; topic: string; type: string }>> {
  const admin = await token(ADMIN);
  const entries: Array<{ eventId: string; topic: string; type: string }> = [];
  for (let cursor: string | null = ''; cursor !== null;) {
    const page = await http('GET', `${auditUrl}/v1/audit?limit=500${cursor ? `&cursor=${cursor}` : ''}`, admin);
    if (page.status !== 200) throw new Error(`GET /v1/audit answered ${page.status}: ${JSON.stringify(page.body)}`);
    entries.push(...(page.body.entries as typeof entries));
    cursor = page.body.nextCursor as string | null;
  }
  return entries;
}
