import 'reflect-metadata';
import { createLogger, failBoot, guardShutdown } from '@estate/platform';
import { startConsole } from './console.app';
import { loadConsoleConfig } from './config';

async function main(): Promise<void> {
  let logger = createLogger('console');
  try {
    const config = loadConsoleConfig(process.env);
    logger = createLogger('console', config.logLevel);
    const running = await startConsole(config, logger);
    process.stderr.write(`Estate console at ${running.url}\n`);
    // Nest closes the server on the first signal and exits 0; the guard bounds that.
    running.app.enableShutdownHooks(['SIGINT', 'SIGTERM'], { useProcessExit: true });
    guardShutdown(logger);
  } catch (error) {
    failBoot(logger, error);
  }
}

void main();
