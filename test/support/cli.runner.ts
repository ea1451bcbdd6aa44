import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { REPO_ROOT } from './infra';

const run = promisify(execFile);

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the built `estate` CLI as a user would, with `env` on top of the test's environment; a failure is an exit code, not a throw. */
export async function estate(args: string[], env: Record<string, string>): Promise<CliRun> {
  try {
    const { stdout, stderr } = await run(process.execPath, [path.join(REPO_ROOT, 'dist/apps/cli/src/main.js'), ...args], { env: { ...process.env, ...env } });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as CliRun;
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}
