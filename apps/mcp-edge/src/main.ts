import 'reflect-metadata';
import { createLogger, failBoot, kafkaBusFrom, stopOnSignals } from '@estate/platform';
import { loadEdgeConfig } from './config';
import { startEdge } from './edge.app';

async function main(): Promise<void> {
  const config = loadEdgeConfig(process.env);
  const logger = createLogger('mcp-edge', config.logLevel);
  try {
    const bus = kafkaBusFrom(config.kafkaBrokers, 'estate-edge', logger);
    const service = await startEdge(config, bus, logger);
    stopOnSignals(logger, async () => {
      await service.stop();
      await bus.close();
    });
  } catch (error) {
    failBoot(logger, error);
  }
}

void main();
