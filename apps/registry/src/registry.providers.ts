import type { Provider } from '@nestjs/common';
import { CheckHandler } from './check/check.handler';
import { CommandHandler } from './command/command.handler';
import { CLASSIFY_CHANGE, EVENT_STORE, TOOL_DECIDER } from './command/registry.tokens';
import { DeprecateHandler } from './deprecate/deprecate.handler';
import { toolDecider, type ClassifyChange } from './domain/tool.decider';
import { cachedClassifier } from './publish/classification.cache';
import { PublishHandler } from './publish/publish.handler';
import { QuarantineHandler } from './quarantine/quarantine.handler';
import { RegisterServerHandler } from './register-server/register-server.handler';
import { RegistryQueries } from './read/registry.queries';
import { RetireHandler } from './retire/retire.handler';
import { SunsetHandler } from './sunset/sunset.handler';
import type { EventStore } from './store/event-store.port';

/** Every registry use case and the reads, over one event store; the classifier cache is shared by all of them. */
export function registryProviders(store: EventStore): Provider[] {
  return [
    { provide: EVENT_STORE, useValue: store },
    { provide: CLASSIFY_CHANGE, useFactory: () => cachedClassifier() },
    { provide: TOOL_DECIDER, useFactory: (classify: ClassifyChange) => toolDecider(classify), inject: [CLASSIFY_CHANGE] },
    CommandHandler,
    RegisterServerHandler, PublishHandler, CheckHandler, DeprecateHandler, RetireHandler, QuarantineHandler, SunsetHandler,
    RegistryQueries,
  ];
}
