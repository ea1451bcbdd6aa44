import 'reflect-metadata';
import { createLogger, failBoot, kafkaBusFrom, stopOnSignals } from '@estate/platform';
import { loadDiscoveryConfig } from './config';
import { startDiscovery } from './discovery.app';

async function main(): Promise<void> {
  const config = loadDiscoveryConfig(process.env);
  const logger = createLogger('discovery', config.logLevel);
  try {
    if (!config.databaseUrl) throw new Error('DATABASE_URL is required');
    const bus = kafkaBusFrom(config.kafkaBrokers, 'estate-discovery', logger);
    const service = await startDiscovery({ ...config, databaseUrl: config.databaseUrl }, bus, logger);
    stopOnSignals(logger, async () => {
      await service.stop();
      await bus.close();
    });
  } catch (error) {
    failBoot(logger, error);
  }
}

void main();
