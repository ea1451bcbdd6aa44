import { Inject, Injectable, type OnApplicationBootstrap, type Provider } from '@nestjs/common';
import { topicName } from '@estate/events';
import { BusTransport, CONSUMER_TRANSPORT, estateTopics, EVENT_BUS, LOGGER, SERVICE_CONFIG, type EventBus, type Logger } from '@estate/platform';
import type { RegistryConfig } from '../config';

/** The drift topic exists before the consumer subscribes to it (Nest bootstraps before the microservice starts). */
@Injectable()
export class DriftTopicSetup implements OnApplicationBootstrap {
  constructor(@Inject(SERVICE_CONFIG) private readonly config: RegistryConfig, @Inject(EVENT_BUS) private readonly bus: EventBus) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.bus.ensureTopics([estateTopics(this.config.topicPrefix, this.config.callsRetentionMs).drift]);
  }
}

/** The registry's one consumer: drift reports, read by one group per deployment (the quarantine is idempotent). */
export function driftQuarantineProviders(config: RegistryConfig): Provider[] {
  return [
    DriftTopicSetup,
    {
      provide: CONSUMER_TRANSPORT,
      useFactory: (bus: EventBus, logger: Logger) => new BusTransport(bus, {
        bindings: { drift: { topic: topicName(config.topicPrefix, 'drift'), groupId: `${config.topicPrefix}estate-registry-drift`, spanName: 'registry drift report' } },
        logger: logger.child({ component: 'drift-consumer' }),
      }),
      inject: [EVENT_BUS, LOGGER],
    },
  ];
}
