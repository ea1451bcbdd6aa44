import { Controller, Get, Inject, Query } from '@nestjs/common';
import type { Principal } from '@estate/contracts';
import { Authenticated, CLOCK, CurrentPrincipal, type Clock } from '@estate/platform';
import { invalidRequest } from '../http/discovery.errors';
import { toHttpError } from '../http/discovery.errors.mapper';
import { AsOfDiscovery } from './as-of.discovery';
import { parseAsOfQuery } from './as-of.request';

/** `GET /v1/discover?at=…`: what a principal could see and call at an instant (POST /v1/discover answers for now). */
@Controller()
export class TimeTravelController {
  constructor(@Inject(AsOfDiscovery) private readonly asOf: AsOfDiscovery, @Inject(CLOCK) private readonly clock: Clock) {}

  @Get('v1/discover')
  @Authenticated()
  async discoverAt(@CurrentPrincipal() caller: Principal, @Query() query: Record<string, unknown>) {
    const parsed = parseAsOfQuery(query, this.clock());
    if (!parsed.ok) throw toHttpError(invalidRequest(parsed.issues));
    const answer = await this.asOf.discover(caller, parsed.value);
    if (!answer.ok) throw toHttpError(answer.error);
    return answer.value;
  }
}
