import 'reflect-metadata';
import { createLogger, failBoot, kafkaBusFrom, stopOnSignals } from '@estate/platform';
import { loadRegistryConfig } from './config';
import { startRegistry } from './registry.app';

async function main(): Promise<void> {
  const config = loadRegistryConfig(process.env);
  const logger = createLogger('registry', config.logLevel);
  try {
    if (!config.databaseUrl) throw new Error('DATABASE_URL is required');
    const bus = kafkaBusFrom(config.kafkaBrokers, 'estate-registry', logger);
    const service = await startRegistry({ ...config, databaseUrl: config.databaseUrl }, bus, logger);
    stopOnSignals(logger, async () => {
      await service.stop();
      await bus.close();
    });
  } catch (error) {
    failBoot(logger, error);
  }
}

void main();
