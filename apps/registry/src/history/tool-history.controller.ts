import { Controller, Get, Inject, Param } from '@nestjs/common';
import type { Principal } from '@estate/contracts';
import { Authenticated, CurrentPrincipal } from '@estate/platform';
import { found } from '../http/registry.answers';
import { ToolHistoryQuery } from './tool-history.query';

/** `GET /v1/tools/{name}/history`: who changed what and when, under the registry's read policy. */
@Controller()
export class ToolHistoryController {
  constructor(@Inject(ToolHistoryQuery) private readonly query: ToolHistoryQuery) {}

  @Get('v1/tools/:name/history')
  @Authenticated()
  history(@Param('name') name: string, @CurrentPrincipal() viewer: Principal) {
    return found(this.query.history(viewer, name), 'TOOL_NOT_FOUND', `tool "${name}" is not published`);
  }
}
