import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { issueDevToken, type TokenClaims } from '@estate/platform';
import { spawnService, waitFor, type ChildService } from './estate.harness';
import { freePort } from './infra';

/**
 * `npm start`'s entry point (dist/apps/estate/src/main.js) as a real child process in a process
 * group of its own, on fixed ports and a data directory of its own, with no DATABASE_URL
 * (embedded PostgreSQL) and, unless `env` names brokers, no Kafka: the durable log.
 * Restartable, to test what survives. `env` applies to every start.
 */
export class EmbeddedEstateRunner {
  child?: ChildService;
  private ports = { registry: 0, discovery: 0, audit: 0, edge: 0 };

  constructor(readonly dataDir: string, private readonly env: Record<string, string> = {}) {}

  get urls() {
    const at = (port: number) => `http://127.0.0.1:${port}`;
    return { registry: at(this.ports.registry), discovery: at(this.ports.discovery), audit: at(this.ports.audit), mcp: `${at(this.ports.edge)}/mcp` };
  }

  get recordFile(): string {
    return path.join(this.dataDir, 'estate.json');
  }

  /** Starts it and resolves once the banner is printed; returns how long that took. */
  async start(extraEnv: Record<string, string> = {}): Promise<number> {
    if (this.ports.registry === 0) for (const key of Object.keys(this.ports) as Array<keyof typeof this.ports>) this.ports[key] = await freePort();
    const started = Date.now();
    const child = spawnService('apps/estate/src/main.js', {
      ESTATE_DATA_DIR: this.dataDir, ESTATE_DEMO: '0', DATABASE_URL: '', KAFKA_BROKERS: '', ESTATE_JWT_SECRET: '', ESTATE_TOPIC_PREFIX: '',
      ESTATE_REGISTRY_PORT: String(this.ports.registry), ESTATE_DISCOVERY_PORT: String(this.ports.discovery),
      ESTATE_AUDIT_PORT: String(this.ports.audit), ESTATE_EDGE_PORT: String(this.ports.edge), ESTATE_CONSOLE_PORT: '0', LOG_LEVEL: 'warn', ...this.env, ...extraEnv,
    }, { detached: true });
    this.child = child;
    await waitFor(async () => {
      if (child.process.exitCode !== null) throw new Error(`npm start exited with ${child.process.exitCode}:\n${child.output()}`);
      return child.output().includes('Estate is running') ? true : undefined;
    }, 'npm start to print its banner', 90000);
    return Date.now() - started;
  }

  /** Ctrl-C: a clean stop. */
  async interrupt(): Promise<number | null> {
    const child = this.running();
    await child.stop('SIGINT');
    return child.process.exitCode;
  }

  /** A crash: SIGKILL to the whole process group, the embedded PostgreSQL included. */
  async kill(): Promise<void> {
    const child = this.running();
    process.kill(-(child.process.pid as number), 'SIGKILL');
    await child.stop();
  }

  /** For afterAll: a clean stop if it still runs, a group kill if that hangs. */
  async dispose(): Promise<void> {
    const child = this.child;
    if (!child || child.process.exitCode !== null || child.process.signalCode !== null) return;
    const timer = setTimeout(() => process.kill(-(child.process.pid as number), 'SIGKILL'), 20000);
    await child.stop('SIGINT');
    clearTimeout(timer);
  }

  /** A token signed with the development secret npm start keeps in its data directory. */
  async token(claims: TokenClaims): Promise<string> {
    return issueDevToken(readFileSync(path.join(this.dataDir, 'jwt-secret'), 'utf8').trim(), claims);
  }

  hasRecord(): boolean {
    return existsSync(this.recordFile);
  }

  private running(): ChildService {
    if (!this.child) throw new Error('the estate was never started');
    return this.child;
  }
}
