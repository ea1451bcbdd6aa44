import { Controller, Get, Inject, Param } from '@nestjs/common';
import type { Principal } from '@estate/contracts';
import { Authenticated, CurrentPrincipal, RequireScope } from '@estate/platform';
import { RegistryQueries } from '../read/registry.queries';
import { found } from './registry.answers';
import { REGISTRY_OPENAPI } from './registry.openapi';

/*
 * Reads answer only what the caller may see (domain/registry-read.policy.ts): publishers and
 * admins read everything; an agent reads the tools it could discover at the edge, with their
 * MCP fields only. A hidden name and a missing one get the same 404, byte for byte.
 */
@Controller()
export class RegistryReadsController {
  constructor(@Inject(RegistryQueries) private readonly queries: RegistryQueries) {}

  @Get('openapi.json')
  openapi(): unknown {
    return REGISTRY_OPENAPI;
  }

  @Get('v1/tools')
  @Authenticated()
  async list(@CurrentPrincipal() viewer: Principal) {
    return { tools: await this.queries.listTools(viewer) };
  }

  @Get('v1/tools/:name')
  @Authenticated()
  tool(@Param('name') name: string, @CurrentPrincipal() viewer: Principal) {
    return found(this.queries.readTool(viewer, name), 'TOOL_NOT_FOUND', `tool "${name}" is not published`);
  }

  @Get('v1/tools/:name/versions/:version')
  @Authenticated()
  version(@Param('name') name: string, @Param('version') version: string, @CurrentPrincipal() viewer: Principal) {
    return found(this.queries.readVersion(viewer, name, version), 'VERSION_NOT_FOUND', `${name}@${version} is not published`);
  }

  /** The classifier's changes from the previous version, with the witness of a breaking one. */
  @Get('v1/tools/:name/versions/:version/diff')
  @RequireScope(['estate:publish', 'estate:admin'], 'comparing versions needs estate:publish or estate:admin')
  diff(@Param('name') name: string, @Param('version') version: string) {
    return found(this.queries.diffVersion(name, version), 'VERSION_NOT_FOUND', `${name}@${version} is not published`);
  }

  @Get('v1/servers/:name')
  @Authenticated()
  server(@Param('name') name: string, @CurrentPrincipal() viewer: Principal) {
    return found(this.queries.readServer(viewer, name), 'SERVER_NOT_FOUND', `server "${name}" is not registered`);
  }
}
