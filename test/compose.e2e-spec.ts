/**
 * docker-compose.yml as Docker Compose itself reads it (compose-go, built from
 * infra/compose-check/), and the two one-shot scripts it runs, executed for real: the topic
 * configs against the test broker, the bank seed against `npm start`.
 */
import { execFile, execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { ConfigResourceTypes, Kafka, logLevel } from 'kafkajs';
import { ADMIN, TEST_SECRET, token } from './support/estate.harness';
import { kafkaBrokers, REPO_ROOT } from './support/infra';
import { signalGroup, spawnEstate, untilRunning } from './support/lifecycle.harness';

const run = promisify(execFile);
const CHECK_DIR = path.join(REPO_ROOT, 'infra', 'compose-check');
/** Where .ci/run builds it. */
const CHECK_BIN = path.join(CHECK_DIR, 'bin', 'compose-check');

/** The binary .ci/run built, or one built now (a developer machine with Go). */
function composeCheck(): string {
  if (existsSync(CHECK_BIN)) return CHECK_BIN;
  const go = ['go', '/usr/local/go/bin/go'].find((candidate) => {
    try {
      execFileSync(candidate, ['version'], { stdio: 'ignore' });
      return true;
    } catch {
      return false;
    }
  });
  if (!go) throw new Error(`${CHECK_BIN} is missing and there is no Go to build it (bash .ci/run builds it)`);
  execFileSync(go, ['build', '-o', CHECK_BIN, '.'], { cwd: CHECK_DIR, stdio: 'inherit' });
  return CHECK_BIN;
}

interface Loaded {
  name: string;
  services: Record<string, {
    image?: string; depends_on?: Record<string, string>; volumes?: string[]; replicas: number; ports?: string[]; environment?: Record<string, string | null>;
  }>;
}

/** A copy of docker-compose.yml, changed by `edit`, in a directory of its own. */
function brokenCopy(edit: (text: string) => string): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'estate-compose-'));
  writeFileSync(path.join(dir, 'docker-compose.yml'), edit(readFileSync(path.join(REPO_ROOT, 'docker-compose.yml'), 'utf8')));
  return path.join(dir, 'docker-compose.yml');
}

describe('docker-compose.yml under Docker Compose v2 loader (compose-go)', () => {
  let bin: string;

  beforeAll(() => {
    bin = composeCheck();
  }, 300_000);

  it('loads, with the stack, the one-shots and their ordering as compose sees them', async () => {
    const { stdout } = await run(bin, [path.join(REPO_ROOT, 'docker-compose.yml')], { env: { PATH: process.env.PATH } });
    const project = JSON.parse(stdout) as Loaded;
    expect(project.name).toBe('estate');
    expect(Object.keys(project.services).sort()).toEqual(
      ['audit', 'bank', 'bank-seed', 'console', 'discovery', 'kafka', 'kafka-topics', 'lb', 'mcp-edge', 'postgres', 'registry'],
    );
    // Prometheus and Grafana belong to the `observability` profile: a plain `up` leaves them out.
    expect(project.services.prometheus).toBeUndefined();
    expect(project.services.grafana).toBeUndefined();
    // The console starts once the services it relays to are up; it needs no broker or database.
    expect(project.services.console.depends_on).toEqual({ registry: 'service_healthy', discovery: 'service_healthy', audit: 'service_healthy' });
    for (const name of ['registry', 'discovery', 'mcp-edge', 'audit']) {
      expect(project.services[name].depends_on).toEqual({
        kafka: 'service_healthy',
        'kafka-topics': 'service_completed_successfully',
        postgres: 'service_healthy',
      });
    }
    expect(project.services['kafka-topics'].depends_on).toEqual({ kafka: 'service_healthy' });
    expect(project.services['bank-seed'].depends_on).toEqual({ registry: 'service_healthy', bank: 'service_healthy' });
    expect(project.services.kafka.volumes).toEqual(['kafkadata:/var/lib/kafka/data']);
    // Bind mounts resolve against the project directory, to scripts that exist.
    expect(project.services['kafka-topics'].volumes).toEqual([`${path.join(REPO_ROOT, 'infra/compose/create-topics.sh')}:/estate/create-topics.sh`]);
    expect(project.services['bank-seed'].volumes).toEqual([`${path.join(REPO_ROOT, 'infra/compose/seed-bank.sh')}:/estate/seed-bank.sh`]);
  });

  it('runs two copies of edge, discovery and audit behind the load balancer, which alone publishes their ports', async () => {
    const { stdout } = await run(bin, [path.join(REPO_ROOT, 'docker-compose.yml')], { env: { PATH: process.env.PATH } });
    const project = JSON.parse(stdout) as Loaded;
    for (const name of ['mcp-edge', 'discovery', 'audit']) {
      expect({ name, replicas: project.services[name].replicas }).toEqual({ name, replicas: 2 });
      // Two copies cannot both bind one host port: a replicated service publishes none.
      expect({ name, ports: project.services[name].ports }).toEqual({ name, ports: undefined });
    }
    expect(project.services.registry.replicas).toBe(1);
    expect(project.services.lb.ports).toEqual(['127.0.0.1:8000:8000', '127.0.0.1:8002:8002', '127.0.0.1:8003:8003']);
    expect(project.services.lb.depends_on).toEqual({ 'mcp-edge': 'service_healthy', discovery: 'service_healthy', audit: 'service_healthy' });
    expect(project.services.lb.volumes).toEqual([`${path.join(REPO_ROOT, 'infra/lb/haproxy.cfg')}:/usr/local/etc/haproxy/haproxy.cfg`]);
    // The balancer's config sends each port to the service's replicas, and sticks edge sessions by their id.
    const config = readFileSync(path.join(REPO_ROOT, 'infra/lb/haproxy.cfg'), 'utf8');
    for (const [port, target] of [['8000', 'mcp-edge:8000'], ['8002', 'discovery:8002'], ['8003', 'audit:8003']]) {
      expect(config).toMatch(new RegExp(`bind :${port}\\n`));
      expect(config).toMatch(new RegExp(`server-template \\S+ 1-\\d+ ${target}\\n`));
    }
    expect(config).toContain('stick store-response res.hdr(mcp-session-id)');
    expect(config).toContain('stick match req.hdr(mcp-session-id)');
  });

  it('gives each Estate service only settings its code reads, and keeps what they write on volumes', async () => {
    const { stdout } = await run(bin, [path.join(REPO_ROOT, 'docker-compose.yml')], { env: { PATH: process.env.PATH } });
    const project = JSON.parse(stdout) as Loaded;
    // Every ESTATE_* name the services' code reads, as a literal of its source.
    const read = new Set<string>();
    const walk = (dir: string): void => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        const full = path.join(dir, entry.name);
        if (entry.isDirectory()) walk(full);
        else if (entry.name.endsWith('.ts') && !/\.(spec|int-spec|e2e-spec)\.ts$/.test(entry.name)) {
          for (const match of readFileSync(full, 'utf8').matchAll(/'(ESTATE_[A-Z0-9_]+)'/g)) read.add(match[1]);
        }
      }
    };
    walk(path.join(REPO_ROOT, 'apps'));
    walk(path.join(REPO_ROOT, 'libs'));
    for (const name of ['registry', 'discovery', 'mcp-edge', 'audit', 'console']) {
      const unread = Object.keys(project.services[name].environment ?? {}).filter((key) => key.startsWith('ESTATE_') && !read.has(key));
      expect({ name, unread }).toEqual({ name, unread: [] });
    }
    // Discovery rebuilds from, and verifies against, the registry's event store.
    expect(project.services.discovery.environment?.ESTATE_REGISTRY_URL).toBe('http://registry:8001');
    // The edge's call spool must outlive its container, and the image's user must be able to write it.
    const spool = project.services['mcp-edge'].environment?.ESTATE_CALL_SPOOL_DIR;
    expect(project.services['mcp-edge'].volumes).toContain(`edgespool:${spool}`);
    const dockerfile = readFileSync(path.join(REPO_ROOT, 'Dockerfile'), 'utf8');
    expect(dockerfile).toMatch(new RegExp(`mkdir -p ${spool} && chown -R node:node`));
  });

  it.each([
    ['a dependency on an undefined service', (t: string) => t.replace('kafka-topics:\n      condition: service_completed_successfully', 'kafka-topic:\n      condition: service_completed_successfully'), /kafka-topic/],
    ['an unknown service key', (t: string) => t.replace('  bank-seed:\n', '  bank-seed:\n    restrat: always\n'), /restrat/],
    ['a required variable that is unset', (t: string) => t.replace('${ESTATE_TOPIC_PREFIX:-}', '${ESTATE_TOPIC_PREFIX:?set a prefix}'), /set a prefix/],
  ])('rejects a copy with %s, with the loader own error', async (_what, edit, message) => {
    const file = brokenCopy(edit);
    try {
      expect(readFileSync(file, 'utf8')).not.toBe(readFileSync(path.join(REPO_ROOT, 'docker-compose.yml'), 'utf8'));
      const failure = await run(bin, [file], { env: { PATH: process.env.PATH } }).then(
        () => undefined,
        (error: { code: number; stderr: string }) => error,
      );
      expect(failure?.code).toBe(1);
      expect(failure?.stderr).toMatch(message);
    } finally {
      rmSync(path.dirname(file), { recursive: true, force: true });
    }
  });
});

describe('infra/compose/create-topics.sh on a real broker', () => {
  const prefix = `ct${randomBytes(4).toString('hex')}.`;
  const kafka = new Kafka({ clientId: 'estate-compose-test', brokers: kafkaBrokers(), logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  let bin: string;

  beforeAll(async () => {
    await admin.connect();
    // kafka-configs.sh is Kafka's own ConfigCommand from the broker's jars. kafka-topics.sh's
    // TopicCommand is not among them, so a stand-in creates the (bare) topic as kafka-topics would.
    bin = mkdtempSync(path.join(os.tmpdir(), 'estate-kafka-bin-'));
    const lib = path.join(REPO_ROOT, 'infra', 'kafka', 'lib');
    writeFileSync(path.join(bin, 'kafka-configs.sh'), `#!/bin/sh\nexec java -cp '${lib}/*' kafka.admin.ConfigCommand "$@"\n`);
    mkdirSync(path.join(bin, 'js'));
    copyFileSync(path.join(__dirname, 'support', 'topic-create.stand-in.js'), path.join(bin, 'js', 'create.js'));
    writeFileSync(path.join(bin, 'kafka-topics.sh'), `#!/bin/sh\nexec '${process.execPath}' '${path.join(bin, 'js', 'create.js')}' "$@"\n`);
    for (const script of ['kafka-configs.sh', 'kafka-topics.sh']) chmodSync(path.join(bin, script), 0o755);
  });

  afterAll(async () => {
    await admin.deleteTopics({ topics: ['estate.registry.events', 'estate.catalog', 'estate.calls'].map((t) => prefix + t) }).catch(() => undefined);
    await admin.disconnect();
    rmSync(bin, { recursive: true, force: true });
  });

  const configsOf = async (topic: string) => {
    const described = await admin.describeConfigs({ includeSynonyms: false, resources: [{ type: ConfigResourceTypes.TOPIC, name: topic }] });
    return Object.fromEntries(described.resources[0].configEntries.map((e) => [e.configName, e.configValue]));
  };

  it('creates the three topics with their declared configs, and gives them to a topic that existed', async () => {
    // One topic already exists with the broker's defaults, as a service's ensureTopics leaves it.
    await admin.createTopics({ topics: [{ topic: `${prefix}estate.registry.events`, numPartitions: 1 }], waitForLeaders: true });
    const env = { PATH: process.env.PATH, KAFKA_BIN: bin, KAFKA_BOOTSTRAP: kafkaBrokers().join(','), ESTATE_TOPIC_PREFIX: prefix, NODE_PATH: path.join(REPO_ROOT, 'node_modules') };
    const { stdout } = await run('sh', [path.join(REPO_ROOT, 'infra/compose/create-topics.sh')], { env });
    expect(stdout).toContain(`topics ready (prefix '${prefix}')`);

    const events = await configsOf(`${prefix}estate.registry.events`);
    expect(events).toMatchObject({ 'cleanup.policy': 'delete', 'retention.ms': '-1', 'retention.bytes': '-1' });
    expect(await configsOf(`${prefix}estate.catalog`)).toMatchObject({ 'cleanup.policy': 'compact' });
    expect(await configsOf(`${prefix}estate.calls`)).toMatchObject({ 'cleanup.policy': 'delete', 'retention.ms': '604800000' });

  }, 120_000);
});

describe('infra/compose/seed-bank.sh against a running estate', () => {
  it('registers the bank and publishes its three tools through the estate CLI; a second run changes nothing', async () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'estate-seed-'));
    const estate = await spawnEstate(dataDir);
    try {
      await untilRunning(estate);
      const env = { PATH: process.env.PATH, ESTATE_REGISTRY_URL: estate.registryUrl, ESTATE_JWT_SECRET: TEST_SECRET, BANK_URL: 'http://127.0.0.1:9/mcp' };
      const seed = () => run('sh', [path.join(REPO_ROOT, 'infra/compose/seed-bank.sh')], { cwd: REPO_ROOT, env });
      const first = await seed();
      expect(first.stdout.trim().split('\n').sort()).toEqual(['published bank.lookup', 'published bank.release', 'published bank.transfer']);
      const second = await seed();
      expect(second.stdout.trim().split('\n').sort()).toEqual(['already published: bank.lookup', 'already published: bank.release', 'already published: bank.transfer']);

      const response = await fetch(`${estate.registryUrl}/v1/tools`, { headers: { authorization: `Bearer ${await token(ADMIN)}` } });
      const names = JSON.stringify(await response.json());
      for (const tool of ['bank.lookup', 'bank.transfer', 'bank.release']) expect(names).toContain(tool);
    } finally {
      await signalGroup(estate, 'SIGINT');
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 180_000);
});
