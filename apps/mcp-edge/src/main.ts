import 'reflect-metadata';
import { busFrom, createLogger, failBoot, joinEstateOrKafka, startTracing, stopOnSignals } from '@estate/platform';
import { loadEdgeConfig } from './config';
import { startEdge } from './edge.app';

async function main(): Promise<void> {
  let logger = createLogger('mcp-edge');
  try {
    const config = loadEdgeConfig(joinEstateOrKafka(process.env, logger));
    logger = createLogger('mcp-edge', config.logLevel, { format: config.logFormat });
    const tracing = startTracing(process.env, 'estate-mcp-edge');
    const bus = busFrom(config, 'estate-edge', logger);
    const service = await startEdge(config, bus, logger);
    stopOnSignals(logger, async () => {
      await service.stop();
      await bus.close();
      await tracing?.shutdown();
    });
  } catch (error) {
    failBoot(logger, error);
  }
}

void main();
