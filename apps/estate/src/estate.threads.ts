import { existsSync } from 'node:fs';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { Logger } from '@estate/platform';
import type { ServicesThreadReport, ServicesThreadStart } from './estate.worker';

export interface ServicesThread {
  urls: { edge: string; discovery: string; audit: string };
  /** Asks the thread's services to stop in order and waits for them (the caller bounds it); the thread then ends. */
  stop(): Promise<void>;
}

/**
 * The compiled worker beside this file; from sources (a test run through swc-node) the .ts with the
 * same loader. The thread takes the process's node flags (--cpu-prof, heap limits, preloads).
 */
function workerEntry(): { file: string; execArgv: string[] } {
  const compiled = path.join(__dirname, 'estate.worker.js');
  if (existsSync(compiled)) return { file: compiled, execArgv: process.execArgv };
  return { file: path.join(__dirname, 'estate.worker.ts'), execArgv: [...process.execArgv, '-r', '@swc-node/register'] };
}

/**
 * Starts discovery, audit and the edge on a second thread of this process (estate.worker.ts).
 * One Node thread ran every service, so a publish's HTTP handling, its relay, the projection,
 * the audit chain and the edge's replica queued behind each other on one core while the second
 * core idled; each thread now has an event loop of its own. `crashed` hears of a thread that
 * ended before it was asked to stop (an uncaught error in a service): the caller stops the rest.
 */
export function startServicesThread(start: ServicesThreadStart, logger: Logger, crashed: (error: unknown) => void): Promise<ServicesThread> {
  const { file, execArgv } = workerEntry();
  const worker = new Worker(file, { workerData: start, execArgv, stdout: false, stderr: false });
  let stopping = false;
  let stopped: (() => void) | undefined;
  return new Promise<ServicesThread>((resolve, reject) => {
    let started = false;
    worker.on('message', (report: ServicesThreadReport) => {
      if (report.kind === 'failed') {
        void worker.terminate();
        reject(report.error);
      }
      if (report.kind === 'stopped') {
        stopped?.();
        void worker.terminate();
      }
      if (report.kind !== 'started') return;
      started = true;
      const { edge, discovery, audit } = report.urls;
      if (!edge || !discovery || !audit) return reject(new Error('the services thread started without one of its services'));
      resolve({
        urls: { edge, discovery, audit },
        stop: () => new Promise<void>((done) => {
          stopping = true;
          stopped = done;
          worker.once('exit', () => done());
          worker.postMessage('stop');
        }),
      });
    });
    worker.on('error', (error) => {
      if (!started) return reject(error);
      if (!stopping) crashed(error);
    });
    worker.on('exit', (code) => {
      if (!started) return reject(new Error(`the services thread exited with code ${code} before its services started`));
      if (!stopping) crashed(new Error(`the services thread exited with code ${code}`));
      logger.debug({ code }, 'services thread ended');
    });
  });
}
