import 'reflect-metadata';
import { createLogger, failBoot, kafkaBusFrom, stopOnSignals } from '@estate/platform';
import { loadAuditConfig } from './config';
import { startAudit } from './audit.app';

async function main(): Promise<void> {
  const config = loadAuditConfig(process.env);
  const logger = createLogger('audit', config.logLevel);
  try {
    if (!config.databaseUrl) throw new Error('DATABASE_URL is required');
    const bus = kafkaBusFrom(config.kafkaBrokers, 'estate-audit', logger);
    const service = await startAudit({ ...config, databaseUrl: config.databaseUrl }, bus, logger);
    stopOnSignals(logger, async () => {
      await service.stop();
      await bus.close();
    });
  } catch (error) {
    failBoot(logger, error);
  }
}

void main();
