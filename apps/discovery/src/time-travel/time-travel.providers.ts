import type { Provider } from '@nestjs/common';
import { LOGGER, type Logger } from '@estate/platform';
import type { RegistryEventSource } from '../catalog.rebuilder';
import { AsOfDiscovery } from './as-of.discovery';

/** Binds `at=` discovery to the event source a rebuild reads (`sourceToken` provides it, or null). */
export function timeTravelProviders(sourceToken: symbol): Provider[] {
  return [{
    provide: AsOfDiscovery,
    useFactory: (source: RegistryEventSource | null, logger: Logger) => new AsOfDiscovery(source ?? undefined, logger.child({ component: 'time-travel' })),
    inject: [sourceToken, LOGGER],
  }];
}
