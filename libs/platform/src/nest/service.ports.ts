import { randomUUID } from 'node:crypto';
import { Injectable, type FactoryProvider, type Provider } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import { stopInOrder, type StopStep } from '../bounded-stop';
import { openDatabase, type DatabaseOptions } from '../database';
import type { CommonConfig } from '../env.reader';
import { EVENT_BUS, type EventBus } from '../event-bus.port';
import type { Logger } from '../logger';
import { busFrom } from '../service.runtime';

/** The service's validated configuration (its own `loadXConfig` result). */
export const SERVICE_CONFIG = Symbol('ServiceConfig');
export const LOGGER = Symbol('Logger');
/** `() => Date`: the domain never reads the time itself (STYLE 4). */
export const CLOCK = Symbol('Clock');
/** `() => string`: new event and entry ids. */
export const ID_SOURCE = Symbol('IdSource');
/** The service's own TypeORM data source, opened on its schema with its migrations applied. */
export const DATABASE = Symbol('Database');

export type Clock = () => Date;
export type IdSource = () => string;

/**
 * What the caller hands a service module. A bus handed in is shared (the composition's, one
 * for the whole estate) and closed by its owner; without one, the module builds its own from
 * the config and closes it. `owned` are the caller's resources the app closes after its own
 * parts (the standalone tracing SDK, whose spans must be flushed before the process exits).
 */
export interface ServicePorts {
  logger: Logger;
  bus?: EventBus;
  clock?: Clock;
  ids?: IdSource;
  owned?: StopStep[];
}

/**
 * Resources this app built or was handed to close: each service's lifecycle stops them after
 * its own parts, in the order they were added, so a consumer never outlives its bus.
 */
@Injectable()
export class OwnedResources {
  readonly steps: StopStep[] = [];

  add(step: StopStep): void {
    this.steps.push(step);
  }
}

/** The ports every service binds: config, logger, bus, clock and ids. */
export function portProviders<C extends Pick<CommonConfig, 'bus' | 'kafkaBrokers' | 'databaseUrl'>>(
  name: string, config: C, ports: ServicePorts,
): Provider[] {
  return [
    { provide: SERVICE_CONFIG, useFactory: () => config },
    { provide: LOGGER, useFactory: () => ports.logger },
    { provide: CLOCK, useFactory: (): Clock => ports.clock ?? (() => new Date()) },
    { provide: ID_SOURCE, useFactory: (): IdSource => ports.ids ?? randomUUID },
    {
      provide: OwnedResources,
      useFactory: () => {
        const owned = new OwnedResources();
        for (const step of ports.owned ?? []) owned.add(step);
        return owned;
      },
    },
    {
      provide: EVENT_BUS,
      useFactory: (logger: Logger, owned: OwnedResources): EventBus => {
        if (ports.bus) return ports.bus;
        const bus = busFrom(config, `estate-${name}`, logger);
        // Closed before anything handed in (tracing), which may still record the bus's last spans.
        owned.steps.unshift({ name: 'event bus', stop: () => bus.close() });
        return bus;
      },
      inject: [LOGGER, OwnedResources],
    },
  ];
}

/**
 * Opens the service's schema (migrations applied) once, for every provider that needs it.
 * `options` is DatabaseOptions without the URL, which comes from the service's config.
 */
export function databaseProvider(options: Omit<DatabaseOptions, 'url'>): FactoryProvider<Promise<DataSource>> {
  return {
    provide: DATABASE,
    useFactory: (config: { databaseUrl: string }) => openDatabase({ ...options, url: config.databaseUrl }),
    inject: [SERVICE_CONFIG],
  };
}

/**
 * A service's own stop, run from its `onApplicationShutdown` (after Nest closed the HTTP
 * server): its parts in order, then what it owns (bus, tracing), each bounded by stopInOrder.
 */
export async function stopServiceParts(logger: Logger, steps: StopStep[], owned: OwnedResources): Promise<void> {
  const started = Date.now();
  await stopInOrder(logger, [...steps, ...owned.steps]);
  logger.info({ ms: Date.now() - started }, 'stopped');
}
