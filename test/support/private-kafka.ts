import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { freePort } from '@estate/platform';
import { REPO_ROOT } from './infra';

const KAFKA_SH = path.join(REPO_ROOT, 'infra', 'kafka', 'kafka.sh');
const run = promisify(execFile);

/** A broker of the test's own (run dir and ports), for faults no shared broker may suffer. */
export interface PrivateKafka {
  brokers: string[];
  /** SIGKILL and start again on the same data; resolves when it answers again. */
  restart(): Promise<void>;
  /** SIGKILL, data kept: the broker is away until `start`. */
  kill(): Promise<void>;
  /** Starts it again on the data it had; resolves when it answers. */
  start(): Promise<void>;
  /** SIGKILL, delete every topic and position, start again. */
  wipeAndRestart(): Promise<void>;
  /** Stops the broker and deletes its run dir. */
  stop(): Promise<void>;
}

export async function startPrivateKafka(): Promise<PrivateKafka> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'estate-kafka-'));
  const port = await freePort();
  let controller = await freePort();
  while (controller === port) controller = await freePort();
  const env = { ...process.env, KAFKA_RUN_DIR: dir, KAFKA_PORT: String(port), KAFKA_CONTROLLER_PORT: String(controller) };
  const sh = (...args: string[]) => run(KAFKA_SH, args, { env, cwd: REPO_ROOT, timeout: 180_000 });
  await sh('start');
  return {
    brokers: [`127.0.0.1:${port}`],
    restart: async () => {
      await sh('kill');
      await sh('start');
    },
    kill: async () => void (await sh('kill')),
    start: async () => void (await sh('start')),
    wipeAndRestart: async () => {
      await sh('kill');
      await sh('wipe');
      await sh('start');
    },
    stop: async () => {
      await sh('stop').catch(() => undefined);
      await rm(dir, { recursive: true, force: true });
    },
  };
}
