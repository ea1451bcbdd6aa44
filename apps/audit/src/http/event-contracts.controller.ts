import { Controller, Get, Inject, Param, Res } from '@nestjs/common';
import type { Response } from 'express';
import { EVENT_DATA_SCHEMAS, eventSchemaUrl } from '@estate/events';
import { estateAsyncApi, SERVICE_CONFIG } from '@estate/platform';
import { AdvertisedAddress } from '../advertised.address';
import type { AuditRootConfig } from '../audit.module';
import { toHttpError } from './audit.errors.mapper';

const schemas = EVENT_DATA_SCHEMAS as Record<string, object>;

/**
 * The contracts of what the estate publishes: a JSON Schema per event type and version (what each
 * CloudEvent's `dataschema` names) and the AsyncAPI document. Public, like any published schema:
 * they describe shapes, never data.
 */
@Controller()
export class EventContractsController {
  constructor(
    @Inject(SERVICE_CONFIG) private readonly config: AuditRootConfig,
    @Inject(AdvertisedAddress) private readonly advertised: AdvertisedAddress,
  ) {}

  @Get('v1/schemas/events/:type/:file')
  schema(@Param('type') type: string, @Param('file') file: string, @Res({ passthrough: true }) response: Response): object {
    const version = /^([1-9][0-9]{0,3})\.json$/.exec(file)?.[1];
    const key = `${type}@${version}`;
    // hasOwn: `constructor@1` must be a 404, not Object's prototype.
    if (version === undefined || !Object.hasOwn(schemas, key)) throw toHttpError({ code: 'NOT_FOUND', message: 'no such event type and version' });
    // Only a schema is a schema: the 404 above stays the problem JSON every other refusal is.
    response.type('application/schema+json');
    const schema = schemas[key];
    const id = eventSchemaUrl(this.advertised.cloudEvents.schemaBase, type, Number(version));
    return { $schema: 'http://json-schema.org/draft-07/schema#', $id: id, title: `${type} v${version}`, ...schema };
  }

  @Get('asyncapi.json')
  asyncApi(): object {
    return estateAsyncApi({ ...this.config, cloudEvents: this.advertised.cloudEvents });
  }
}
