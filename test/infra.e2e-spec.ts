/**
 * Infrastructure checks: docker-compose.yml against the Compose Specification schema and the
 * services' config loaders, Dockerfile/compose consistency, and smoke tests of the Kafka broker
 * and PostgreSQL server that test/support/global-setup.ts provisioned.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import Ajv from 'ajv';
import { Kafka, logLevel, type Admin } from 'kafkajs';
import { Client } from 'pg';
import { parse } from 'yaml';
import {
  INFRA_STATE_FILE,
  KNOWN_ENV,
  KNOWN_PORTS,
  REPO_ROOT,
  createTestDatabase,
  databaseUrl,
  freePort,
  kafkaBrokers,
  randomTopicPrefix,
} from './support/infra';

const read = (rel: string) => fs.readFileSync(path.join(REPO_ROOT, rel), 'utf8');
const exists = (rel: string) => fs.existsSync(path.join(REPO_ROOT, rel));

type Service = {
  image?: string;
  build?: string | { context?: string; dockerfile?: string; target?: string };
  command?: string | string[];
  environment?: Record<string, unknown> | string[];
  ports?: Array<string | number | { target: number; published?: string | number; host_ip?: string }>;
  /** Replicated services publish nothing (the load balancer does); they only expose their port. */
  expose?: Array<string | number>;
  healthcheck?: { test?: string | string[] };
  depends_on?: string[] | Record<string, { condition?: string }>;
  restart?: string;
};
type Compose = { services: Record<string, Service>; volumes?: Record<string, unknown> };

const composeText = read('docker-compose.yml');
// Compose honours YAML merge keys (<<: *anchor); YAML 1.2 parsers need them switched on.
const compose = parse(composeText, { merge: true }) as Compose;

/** The estate services and the app folder each one runs. */
const ESTATE_SERVICES: Record<string, string> = {
  registry: 'registry',
  discovery: 'discovery',
  'mcp-edge': 'mcp-edge',
  audit: 'audit',
};
/** The load balancer in front of the replicated services (infra/lb/haproxy.cfg). */
const LB = 'lb';
/** Run once per `up` and exit: topics with their configs, then the sample bank's registration. */
const ONE_SHOTS = ['kafka-topics', 'bank-seed'];
/** Started only with `--profile observability`. */
const OBSERVABILITY = ['prometheus', 'grafana'];
const PORT_ENV: Record<string, string> = {
  registry: 'ESTATE_REGISTRY_PORT',
  discovery: 'ESTATE_DISCOVERY_PORT',
  'mcp-edge': 'ESTATE_EDGE_PORT',
  audit: 'ESTATE_AUDIT_PORT',
  bank: 'BANK_PORT',
};

function envOf(svc: Service): Record<string, string> {
  const env = svc.environment ?? {};
  if (Array.isArray(env)) {
    return Object.fromEntries(env.map((e) => [e.split('=')[0], e.slice(e.indexOf('=') + 1)]));
  }
  return Object.fromEntries(Object.entries(env).map(([k, v]) => [k, v === null ? '' : String(v)]));
}

/** Container-side port of each `ports` entry (short or long syntax). */
function targetPorts(svc: Service): number[] {
  if (!svc.ports && svc.expose) return svc.expose.map(Number);
  return (svc.ports ?? []).map((p) => {
    if (typeof p === 'number') return p;
    if (typeof p === 'object') return Number(p.target);
    const noProto = p.split('/')[0];
    return Number(noProto.split(':').pop());
  });
}

function publishedPorts(svc: Service): number[] {
  return (svc.ports ?? []).map((p) => {
    if (typeof p === 'number') return p;
    if (typeof p === 'object') return Number(p.published ?? p.target);
    const parts = p.split('/')[0].split(':');
    return Number(parts.length >= 2 ? parts[parts.length - 2] : parts[0]);
  });
}

const ENV_NAME = /ESTATE_[A-Z0-9_]+|DATABASE_URL|KAFKA_BROKERS|LOG_LEVEL/g;

function namesIn(files: string[]): Set<string> {
  const names = new Set<string>();
  for (const f of files) for (const m of fs.readFileSync(f, 'utf8').match(ENV_NAME) ?? []) names.add(m);
  return names;
}

function tsFilesUnder(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile() && d.name.endsWith('.ts') && !/\.(spec|int-spec|e2e-spec)\.ts$/.test(d.name))
    .map((d) => path.join(d.parentPath, d.name));
}

/**
 * Environment names the service's config loader knows: its own apps/<app>/src/config.ts plus
 * the shared readers in libs/platform (readCommon, readAuth). Falls back to KNOWN_ENV while a
 * file does not exist yet.
 */
function knownEnvFor(service: string): { names: Set<string>; source: string } {
  const app = ESTATE_SERVICES[service];
  const own = path.join(REPO_ROOT, 'apps', app, 'src', 'config.ts');
  const shared = tsFilesUnder(path.join(REPO_ROOT, 'libs', 'platform', 'src'));
  const names = new Set<string>();
  const sources: string[] = [];
  if (fs.existsSync(own)) {
    // config.ts and the part loaders it calls (webhooks/webhook.config.ts and the like).
    const parts = tsFilesUnder(path.join(REPO_ROOT, 'apps', app, 'src')).filter((f) => f.endsWith('.config.ts'));
    namesIn([own, ...parts]).forEach((n) => names.add(n));
    sources.push(`apps/${app}/src/config.ts`);
  } else {
    // TODO(lead): every service has a config.ts now; drop this fallback when that stays true.
    KNOWN_ENV[app as keyof typeof KNOWN_ENV].forEach((n) => names.add(n));
    sources.push(`KNOWN_ENV.${app}`);
  }
  const sharedNames = namesIn(shared);
  if (sharedNames.size > 0) {
    sharedNames.forEach((n) => names.add(n));
    sources.push('libs/platform/src');
  } else {
    [...KNOWN_ENV.common, ...KNOWN_ENV.auth].forEach((n) => names.add(n));
    sources.push('KNOWN_ENV.common+auth');
  }
  return { names, source: sources.join(' + ') };
}

function commandOf(svc: Service): string[] {
  return Array.isArray(svc.command) ? svc.command : (svc.command ?? '').split(/\s+/).filter(Boolean);
}

function buildOf(svc: Service): { context: string; dockerfile: string; target?: string } | undefined {
  if (!svc.build) return undefined;
  if (typeof svc.build === 'string') return { context: svc.build, dockerfile: 'Dockerfile' };
  return { context: svc.build.context ?? '.', dockerfile: svc.build.dockerfile ?? 'Dockerfile', target: svc.build.target };
}

interface Stage {
  name: string;
  from: string;
  lines: string[];
}

function dockerStages(text: string): Stage[] {
  const logical = text
    .replace(/\\\r?\n/g, ' ')
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));
  const stages: Stage[] = [];
  for (const line of logical) {
    const from = /^FROM\s+(?:--platform=\S+\s+)?(\S+)(?:\s+AS\s+(\S+))?$/i.exec(line);
    if (from) {
      stages.push({ name: from[2] ?? String(stages.length), from: from[1], lines: [] });
    } else if (stages.length > 0) {
      stages[stages.length - 1].lines.push(line);
    }
  }
  return stages;
}

describe('docker-compose.yml', () => {
  it('is valid against the Compose Specification JSON Schema (vendored in infra/compose/)', () => {
    const schema = JSON.parse(read('infra/compose/compose-spec.json'));
    delete schema.$schema; // draft-07, declared with an https URI ajv does not map to its meta-schema
    const ajv = new Ajv({ allErrors: true, strict: false });
    const validate = ajv.compile(schema);
    const ok = validate(compose);
    expect(validate.errors ?? []).toEqual([]);
    expect(ok).toBe(true);

    // The validator is not vacuous: a broken file fails.
    const broken = structuredClone(compose) as unknown as { services: Record<string, Record<string, unknown>> };
    broken.services.registry.restrat = 'always';
    broken.services.audit.ports = [{ target: 'eight-thousand' }];
    expect(validate(broken)).toBe(false);
  });

  it('defines the whole stack with health-gated dependencies and restart policies', () => {
    expect(Object.keys(compose.services).sort()).toEqual(
      ['audit', 'bank', 'console', 'discovery', 'kafka', LB, 'mcp-edge', 'postgres', 'registry', ...ONE_SHOTS, ...OBSERVABILITY].sort(),
    );
    expect(compose.services.kafka.image).toMatch(/^apache\/kafka:4\.1\.\d+$/);
    expect(compose.services['kafka-topics'].image).toBe(compose.services.kafka.image);
    expect(compose.services.postgres.image).toMatch(/^postgres:17/);
    for (const [name, svc] of Object.entries(compose.services)) {
      if (ONE_SHOTS.includes(name)) {
        // A one-shot runs once per `up`; a restart policy would run it again after it succeeded.
        expect({ name, restart: svc.restart }).toEqual({ name, restart: 'no' });
        continue;
      }
      expect({ name, restart: svc.restart }).toEqual({ name, restart: expect.stringMatching(/^(always|unless-stopped|on-failure)/) });
      expect({ name, healthcheck: !!svc.healthcheck?.test }).toEqual({ name, healthcheck: true });
    }
    for (const name of Object.keys(ESTATE_SERVICES)) {
      const deps = compose.services[name].depends_on;
      expect(deps).toMatchObject({
        kafka: { condition: 'service_healthy' },
        'kafka-topics': { condition: 'service_completed_successfully' },
        postgres: { condition: 'service_healthy' },
      });
    }
    expect(compose.services['kafka-topics'].depends_on).toMatchObject({ kafka: { condition: 'service_healthy' } });
    expect(compose.services['bank-seed'].depends_on).toMatchObject({ registry: { condition: 'service_healthy' }, bank: { condition: 'service_healthy' } });
    // Every dependency names a defined service.
    for (const svc of Object.values(compose.services)) {
      const deps = Array.isArray(svc.depends_on) ? svc.depends_on : Object.keys(svc.depends_on ?? {});
      for (const d of deps) expect(Object.keys(compose.services)).toContain(d);
    }
  });

  it('keeps Kafka\'s log in a named volume at the broker\'s log directory', () => {
    const kafka = compose.services.kafka as Service & { volumes?: string[] };
    expect(envOf(kafka).KAFKA_LOG_DIRS).toBe('/var/lib/kafka/data');
    expect(kafka.volumes).toContain('kafkadata:/var/lib/kafka/data');
    expect(Object.keys(compose.volumes ?? {})).toContain('kafkadata');
  });

  it('mounts one-shot scripts that exist, and the seed uses only names the CLI and the script read', () => {
    for (const name of ONE_SHOTS) {
      const mounts = ((compose.services[name] as Service & { volumes?: string[] }).volumes ?? []).map((v) => v.split(':')[0]);
      for (const source of mounts) expect({ name, source, exists: exists(source) }).toEqual({ name, source, exists: true });
    }
    const seed = read('infra/compose/seed-bank.sh') + read('apps/cli/src/cli.run.ts');
    for (const name of Object.keys(envOf(compose.services['bank-seed']))) expect({ name, read: seed.includes(name) }).toEqual({ name, read: true });
  });

  it.each(Object.keys(ESTATE_SERVICES))('%s: uses only environment names its config loader reads', (service) => {
    const { names, source } = knownEnvFor(service);
    const used = Object.keys(envOf(compose.services[service]));
    const unknown = used.filter((n) => !names.has(n));
    expect({ service, source, unknown }).toEqual({ service, source, unknown: [] });
    for (const required of ['DATABASE_URL', 'KAFKA_BROKERS', PORT_ENV[service]]) expect(used).toContain(required);
  });

  it('bank: uses only the environment names its CLI reads', () => {
    const main = read('examples/bank/main.ts') + read('examples/bank/bank.server.ts');
    const used = Object.keys(envOf(compose.services.bank));
    for (const name of used) {
      expect(KNOWN_ENV.bank).toContain(name);
      expect({ name, readByBank: main.includes(name) }).toEqual({ name, readByBank: true });
    }
  });

  it.each([...Object.keys(ESTATE_SERVICES), 'bank'])('%s: container port, port variable and health check agree', (service) => {
    const svc = compose.services[service];
    const env = envOf(svc);
    const port = KNOWN_PORTS[service];
    expect(targetPorts(svc)).toEqual([port]);
    expect(Number(env[PORT_ENV[service]])).toBe(port);
    expect(JSON.stringify(svc.healthcheck?.test)).toContain(String(port));
    if (service !== 'bank') {
      for (const p of publishedPorts(svc)) expect(p).toBeGreaterThanOrEqual(8000);
      for (const p of publishedPorts(svc)) expect(p).toBeLessThanOrEqual(8003);
      // Inside a container the service must listen beyond loopback.
      const hostVar = PORT_ENV[service].replace(/_PORT$/, '_HOST');
      expect(env[hostVar]).toBe('0.0.0.0');
    }
  });

  it('observability profile: pinned Prometheus and Grafana on loopback ports, mounting files that exist, scraping every service with the token', () => {
    const services = compose.services as Record<string, Service & { profiles?: string[]; volumes?: string[]; configs?: Array<{ source: string; target: string }> }>;
    for (const name of OBSERVABILITY) {
      const svc = services[name];
      expect({ name, profiles: svc.profiles }).toEqual({ name, profiles: ['observability'] });
      expect(svc.image).toMatch(/^(prom\/prometheus:v\d+\.\d+\.\d+|grafana\/grafana:\d+\.\d+\.\d+)$/);
      for (const port of svc.ports ?? []) expect(String(port)).toMatch(/^127\.0\.0\.1:/);
      for (const source of (svc.volumes ?? []).map((v) => v.split(':')[0]).filter((v) => v.startsWith('./'))) {
        expect({ name, source, exists: exists(source) }).toEqual({ name, source, exists: true });
      }
    }
    // No estate service needs a profile: a plain `up` is the whole product.
    for (const name of Object.keys(ESTATE_SERVICES)) expect((services[name] as { profiles?: string[] }).profiles).toBeUndefined();
    const prometheus = parse(read('infra/observability/prometheus/prometheus.yml')) as {
      scrape_configs: Array<{ authorization: { credentials_file: string }; static_configs: Array<{ targets: string[] }> }>;
    };
    const [job] = prometheus.scrape_configs;
    expect(services.prometheus.configs).toEqual([{ source: 'metrics_token', target: job.authorization.credentials_file }]);
    expect(job.static_configs.flatMap((c) => c.targets).sort()).toEqual(Object.keys(ESTATE_SERVICES).map((s) => `${s}:${KNOWN_PORTS[s]}`).sort());
    const token = /ESTATE_METRICS_TOKEN: (\S+)/.exec(composeText)?.[1];
    expect(token).toBeDefined();
    expect(composeText).toContain(`content: ${token}`);
    const datasource = parse(read('infra/observability/grafana/provisioning/datasources/prometheus.yml')) as { datasources: Array<{ uid: string; url: string }> };
    expect(datasource.datasources[0].url).toBe('http://prometheus:9090');
    const dashboard = JSON.parse(read('infra/observability/grafana/dashboards/estate.json')) as { panels: Array<{ datasource?: { uid: string } }> };
    for (const panel of dashboard.panels.filter((p) => p.datasource)) expect(panel.datasource!.uid).toBe(datasource.datasources[0].uid);
  });

  it('console: relays to the services by their compose names, on its own loopback-published port', () => {
    const svc = compose.services.console;
    const env = envOf(svc);
    const loader = read('apps/console/src/config.ts');
    for (const name of Object.keys(env)) expect({ name, read: loader.includes(`'${name}'`) }).toEqual({ name, read: true });
    expect(targetPorts(svc)).toEqual([KNOWN_PORTS.console]);
    expect(Number(env.ESTATE_CONSOLE_PORT)).toBe(KNOWN_PORTS.console);
    expect(env.ESTATE_CONSOLE_HOST).toBe('0.0.0.0');
    expect(svc.ports).toEqual([`127.0.0.1:${KNOWN_PORTS.console}:${KNOWN_PORTS.console}`]);
    expect(JSON.stringify(svc.healthcheck?.test)).toContain(String(KNOWN_PORTS.console));
    expect(env).toMatchObject({
      ESTATE_REGISTRY_URL: `http://registry:${KNOWN_PORTS.registry}`,
      ESTATE_DISCOVERY_URL: `http://discovery:${KNOWN_PORTS.discovery}`,
      ESTATE_AUDIT_URL: `http://audit:${KNOWN_PORTS.audit}`,
    });
  });

  it('no two services publish the same host port', () => {
    const all = Object.values(compose.services).flatMap(publishedPorts);
    expect(new Set(all).size).toBe(all.length);
  });
});

describe('Dockerfile and compose build references', () => {
  const dockerfile = read('Dockerfile');
  const stages = dockerStages(dockerfile);
  const stageNames = stages.map((s) => s.name);

  it('has a build stage and a non-root runtime stage as the default target', () => {
    expect(stageNames).toEqual(expect.arrayContaining(['build', 'runtime']));
    const build = stages.find((s) => s.name === 'build')!;
    const runtime = stages[stages.length - 1];
    expect(runtime.name).toBe('runtime');
    expect(runtime.from).toMatch(/^node:(\$\{NODE_VERSION\}|20)-slim$/);
    expect(dockerfile).toMatch(/^ARG NODE_VERSION=20$/m);
    expect(build.lines.some((l) => /^RUN .*npm ci(?!.*--omit=dev)/.test(l))).toBe(true);
    expect(build.lines.some((l) => /^RUN .*npm run build/.test(l))).toBe(true);
    expect(runtime.lines.some((l) => /^RUN .*npm ci .*--omit=dev/.test(l))).toBe(true);
    expect(runtime.lines.some((l) => /^COPY --from=build .*dist/.test(l))).toBe(true);
    const user = runtime.lines.filter((l) => /^USER /.test(l)).pop();
    expect(user).toBeDefined();
    expect(user).not.toMatch(/^USER (root|0)(:|$)/);
    expect(JSON.parse(read('package.json')).scripts.build).toBeTruthy();
  });

  it('copies only files that exist and that .dockerignore does not exclude', () => {
    const ignored = read('.dockerignore')
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l && !l.startsWith('#'));
    for (const stage of stages) {
      for (const line of stage.lines.filter((l) => /^COPY /.test(l) && !/--from=/.test(l))) {
        const args = line.replace(/^COPY\s+(--\S+\s+)*/, '').split(/\s+/);
        for (const src of args.slice(0, -1)) {
          const matches = src.includes('*')
            ? fs.readdirSync(REPO_ROOT).filter((f) => new RegExp(`^${src.replace(/\./g, '\\.').replace(/\*/g, '.*')}$`).test(f))
            : exists(src)
              ? [src]
              : [];
          expect({ line, src, found: matches.length > 0 }).toEqual({ line, src, found: true });
          for (const m of matches) expect({ src: m, ignored: ignored.includes(m) }).toEqual({ src: m, ignored: false });
        }
      }
      for (const line of stage.lines.filter((l) => /--from=/.test(l))) {
        const from = /--from=(\S+)/.exec(line)![1];
        expect(stageNames.slice(0, stages.indexOf(stage))).toContain(from);
      }
    }
  });

  it.each(['registry', 'discovery', 'mcp-edge', 'audit', 'console', 'bank'])('%s: builds from a Dockerfile stage and runs a compiled entrypoint', (service) => {
    const svc = compose.services[service];
    const build = buildOf(svc);
    expect(build).toBeDefined();
    expect(exists(path.join(build!.context, build!.dockerfile))).toBe(true);
    expect(path.resolve(REPO_ROOT, build!.context)).toBe(REPO_ROOT);
    expect(stageNames).toContain(build!.target ?? stageNames[stageNames.length - 1]);
    expect(svc.image).toBe(compose.services.registry.image); // one image for all

    const [node, entry] = commandOf(svc);
    expect(node).toBe('node');
    const m = /^dist\/(.+)\.js$/.exec(entry);
    expect(m).not.toBeNull();
    const source = `${m![1]}.ts`;
    const dir = path.dirname(source);
    expect({ service, dir, exists: exists(dir) }).toEqual({ service, dir, exists: true });
    // A missing apps/<app>/src/main.ts is reported as a todo below while the app is being built.
    if (service === 'bank' || exists(source)) {
      expect({ service, source, exists: exists(source) }).toEqual({ service, source, exists: true });
    }
  });

  // TODO(lead): these turn into nothing once every app has its entrypoint.
  for (const [service, app] of Object.entries(ESTATE_SERVICES)) {
    if (!exists(`apps/${app}/src/main.ts`)) {
      it.todo(`${service}: apps/${app}/src/main.ts (the compose entrypoint dist/apps/${app}/src/main.js) does not exist yet`);
    }
  }
});

describe('provisioned infrastructure', () => {
  it('exports the brokers and the database through the environment (and a debug file)', async () => {
    expect(kafkaBrokers().length).toBeGreaterThan(0);
    expect(databaseUrl()).toMatch(/^postgres(ql)?:\/\//);
    if (fs.existsSync(INFRA_STATE_FILE)) {
      const state = JSON.parse(fs.readFileSync(INFRA_STATE_FILE, 'utf8'));
      // The file is shared by every Jest run on this machine: only this run's own record must agree.
      if (state.pid === process.ppid || state.pid === process.pid) expect(state.kafka.brokers).toBe(process.env.KAFKA_BROKERS);
    }
    const port = await freePort();
    expect(port).toBeGreaterThan(0);
    expect(randomTopicPrefix()).toMatch(/^t[0-9a-f]+\.$/);
  });

  /**
   * kafkajs's own `waitForLeaders` gives up when a busy KRaft broker answers the first metadata
   * request with UNKNOWN_TOPIC_OR_PARTITION (the topic is created, its metadata not yet served).
   */
  async function leaderElected(admin: Admin, topic: string): Promise<void> {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const metadata = await admin.fetchTopicMetadata({ topics: [topic] }).catch(() => undefined);
      if (metadata?.topics[0]?.partitions.every((p) => p.leader >= 0)) return;
      if (Date.now() > deadline) throw new Error(`no leader for ${topic} within 30 s`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }

  it('Kafka: produces and consumes one message on a random topic', async () => {
    const kafka = new Kafka({ clientId: 'estate-infra-test', brokers: kafkaBrokers(), logLevel: logLevel.NOTHING });
    const topic = `${randomTopicPrefix()}smoke`;
    const admin = kafka.admin();
    const producer = kafka.producer();
    const consumer = kafka.consumer({ groupId: `${topic}.group` });
    try {
      await admin.connect();
      await admin.createTopics({ topics: [{ topic, numPartitions: 1, replicationFactor: 1 }] });
      await leaderElected(admin, topic);
      await producer.connect();
      const value = `hello ${Date.now()}`;
      await producer.send({ topic, messages: [{ key: 'k', value }] });

      await consumer.connect();
      await consumer.subscribe({ topic, fromBeginning: true });
      const received = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('no message within 30 s')), 30_000);
        void consumer.run({
          eachMessage: async ({ message }) => {
            clearTimeout(timer);
            resolve(message.value?.toString() ?? '');
          },
        });
      });
      expect(received).toBe(value);
      await admin.deleteTopics({ topics: [topic] }).catch(() => undefined);
    } finally {
      await consumer.disconnect().catch(() => undefined);
      await producer.disconnect().catch(() => undefined);
      await admin.disconnect().catch(() => undefined);
    }
  });

  it('PostgreSQL: creates a random database, uses it, and drops it', async () => {
    const db = await createTestDatabase();
    const client = new Client({ connectionString: db.url });
    await client.connect();
    try {
      const { rows } = await client.query<{ db: string; v: string }>('select current_database() as db, version() as v');
      expect(rows[0].db).toBe(db.name);
      expect(rows[0].v).toMatch(/PostgreSQL 1[4-9]/);
      await client.query('create table t (id bigserial primary key, x int)');
      await client.query('insert into t (x) values (1), (2)');
      expect((await client.query('select count(*)::int as n from t')).rows[0].n).toBe(2);
    } finally {
      await client.end();
    }
    await db.drop();
    const admin = new Client({ connectionString: databaseUrl() });
    await admin.connect();
    try {
      const { rowCount } = await admin.query('select 1 from pg_database where datname = $1', [db.name]);
      expect(rowCount).toBe(0);
    } finally {
      await admin.end();
    }
  });
});
