import 'reflect-metadata';
import { busFrom, createLogger, failBoot, joinEstateOrKafka, stopOnSignals } from '@estate/platform';
import { loadEdgeConfig } from './config';
import { startEdge } from './edge.app';

async function main(): Promise<void> {
  let logger = createLogger('mcp-edge');
  try {
    const config = loadEdgeConfig(joinEstateOrKafka(process.env, logger));
    logger = createLogger('mcp-edge', config.logLevel);
    const bus = busFrom(config, 'estate-edge', logger);
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
