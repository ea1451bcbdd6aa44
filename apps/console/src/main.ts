import { createLogger, failBoot, stopOnSignals } from '@estate/platform';
import { startConsole } from './console.app';
import { loadConsoleConfig } from './config';

async function main(): Promise<void> {
  let logger = createLogger('console');
  try {
    const config = loadConsoleConfig(process.env);
    logger = createLogger('console', config.logLevel);
    const running = await startConsole(config, logger);
    process.stderr.write(`Estate console at ${running.url}\n`);
    stopOnSignals(logger, () => running.stop());
  } catch (error) {
    failBoot(logger, error);
  }
}

void main();
