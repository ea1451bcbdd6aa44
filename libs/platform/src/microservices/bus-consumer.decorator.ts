import { applyDecorators, Controller, UseFilters } from '@nestjs/common';
import { KeepBusErrors } from './bus-errors.filter';

/** A controller of bus event handlers: their errors reach the transport as thrown (retry or dead-letter). */
export function BusConsumer(): ClassDecorator {
  return applyDecorators(Controller(), UseFilters(new KeepBusErrors()));
}
