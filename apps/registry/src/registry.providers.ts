import type { FactoryProvider, Provider } from '@nestjs/common';
import type { CompatPolicy } from '@estate/contracts';
import { CheckHandler } from './check/check.handler';
import { CommandHandler } from './command/command.handler';
import { CLASSIFY_CHANGE, EVENT_STORE, TOOL_DECIDER } from './command/registry.tokens';
import { DeprecateHandler } from './deprecate/deprecate.handler';
import { classifierFor, toolDecider, type ClassifyChange } from './domain/tool.decider';
import { cachedClassifier } from './publish/classification.cache';
import { PublishHandler } from './publish/publish.handler';
import { QuarantineHandler } from './quarantine/quarantine.handler';
import { RegisterServerHandler } from './register-server/register-server.handler';
import { RegistryQueries } from './read/registry.queries';
import { RetireHandler } from './retire/retire.handler';
import { SunsetHandler } from './sunset/sunset.handler';
import type { EventStore } from './store/event-store.port';

/**
 * Every registry use case and the reads, over one event store (`store`: how the module builds it).
 * `compat` (ESTATE_COMPAT) is bound into the one classifier all of them share, so they share its
 * cache too, and a cached answer is always one given under the policy in force.
 */
export function registryProviders(compat: CompatPolicy, store: Omit<FactoryProvider<EventStore>, 'provide'>): Provider[] {
  return [
    { provide: EVENT_STORE, ...store },
    { provide: CLASSIFY_CHANGE, useFactory: () => cachedClassifier(classifierFor(compat)) },
    { provide: TOOL_DECIDER, useFactory: (classify: ClassifyChange) => toolDecider(classify), inject: [CLASSIFY_CHANGE] },
    CommandHandler,
    RegisterServerHandler, PublishHandler, CheckHandler, DeprecateHandler, RetireHandler, QuarantineHandler, SunsetHandler,
    RegistryQueries,
  ];
}
