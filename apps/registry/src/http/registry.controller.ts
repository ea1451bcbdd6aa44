import { Body, Controller, Get, Headers, HttpCode, Inject, Param, Post, UseGuards } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { Principal } from '@estate/contracts';
import { BearerGuard, CurrentPrincipal, httpError } from '@estate/platform';
import { RegistryService, type Outcome, type PublishOutcome } from '../registry.service';
import { toHttpError } from './registry.errors.mapper';
import { parseLifecycleBody, parseRegisterServer } from './registry.requests';
import { REGISTRY_OPENAPI } from './registry.openapi';

function unwrap<T>(outcome: Outcome<T>): T {
  if (!outcome.ok) throw toHttpError(outcome.error);
  return outcome.value;
}

/**
 * Publish and check answer the same shape: what was decided, never whether it was stored, with
 * the ESTATE_COMPAT policy it was decided under and what the strict policy says (domain/publish-report.ts).
 */
const publishBody = ({ name, version, bump, compat, changes }: PublishOutcome) => ({ name, version, bump, compat, changes });

const correlation = (header: string | undefined): string => header?.slice(0, 128) || randomUUID();

@Controller()
export class RegistryController {
  constructor(@Inject(RegistryService) private readonly registry: RegistryService) {}

  @Get('openapi.json')
  openapi(): unknown {
    return REGISTRY_OPENAPI;
  }

  @Post('v1/servers')
  @UseGuards(BearerGuard)
  async registerServer(@Body() body: unknown, @CurrentPrincipal() actor: Principal, @Headers('x-correlation-id') cid?: string) {
    const parsed = parseRegisterServer(body);
    if (!parsed.ok) throw httpError(400, 'INVALID_REQUEST', 'the server registration is malformed', { issues: parsed.issues });
    return unwrap(await this.registry.registerServer(parsed.value, actor, correlation(cid)));
  }

  @Post('v1/tools')
  @UseGuards(BearerGuard)
  async publish(@Body() body: unknown, @CurrentPrincipal() actor: Principal, @Headers('x-correlation-id') cid?: string) {
    return publishBody(unwrap(await this.registry.publish(body, actor, correlation(cid), false)));
  }

  @Post('v1/tools/check')
  @HttpCode(200)
  @UseGuards(BearerGuard)
  async check(@Body() body: unknown, @CurrentPrincipal() actor: Principal) {
    return publishBody(unwrap(await this.registry.publish(body, actor, 'dry-run', true)));
  }

  @Post('v1/tools/:name/versions/:version/deprecate')
  @HttpCode(200)
  @UseGuards(BearerGuard)
  async deprecate(
    @Param('name') name: string, @Param('version') version: string, @Body() body: unknown,
    @CurrentPrincipal() actor: Principal, @Headers('x-correlation-id') cid?: string,
  ) {
    const parsed = parseLifecycleBody(body, true);
    if (!parsed.ok) throw httpError(400, 'INVALID_REQUEST', 'the deprecation is malformed', { issues: parsed.issues });
    return unwrap(await this.registry.transition({ type: 'DeprecateToolVersion', name, version, ...parsed.value }, actor, correlation(cid)));
  }

  @Post('v1/tools/:name/versions/:version/retire')
  @HttpCode(200)
  @UseGuards(BearerGuard)
  async retire(
    @Param('name') name: string, @Param('version') version: string, @Body() body: unknown,
    @CurrentPrincipal() actor: Principal, @Headers('x-correlation-id') cid?: string,
  ) {
    const parsed = parseLifecycleBody(body, false);
    if (!parsed.ok) throw httpError(400, 'INVALID_REQUEST', 'the retirement is malformed', { issues: parsed.issues });
    return unwrap(await this.registry.transition({ type: 'RetireToolVersion', name, version, reason: parsed.value.reason }, actor, correlation(cid)));
  }

  /** Hides a version everywhere at once (an edge reports upstream drift). Needs estate:quarantine or estate:publish. */
  @Post('v1/tools/:name/versions/:version/quarantine')
  @HttpCode(200)
  @UseGuards(BearerGuard)
  async quarantine(
    @Param('name') name: string, @Param('version') version: string, @Body() body: unknown,
    @CurrentPrincipal() actor: Principal, @Headers('x-correlation-id') cid?: string,
  ) {
    if (!actor.scopes.some((s) => s === 'estate:quarantine' || s === 'estate:publish')) throw httpError(403, 'FORBIDDEN', 'this needs the estate:quarantine scope');
    const parsed = parseLifecycleBody(body, false);
    if (!parsed.ok) throw httpError(400, 'INVALID_REQUEST', 'the quarantine is malformed', { issues: parsed.issues });
    return unwrap(await this.registry.transition({ type: 'QuarantineToolVersion', name, version, reason: parsed.value.reason }, actor, correlation(cid)));
  }

  /*
   * Reads answer only what the caller may see (domain/registry-read.policy.ts): publishers and
   * admins read everything; an agent reads the tools it could discover at the edge, with their
   * MCP fields only. A hidden name and a missing one get the same 404, byte for byte.
   */
  @Get('v1/tools')
  @UseGuards(BearerGuard)
  async list(@CurrentPrincipal() viewer: Principal) {
    return { tools: await this.registry.listTools(viewer) };
  }

  @Get('v1/tools/:name')
  @UseGuards(BearerGuard)
  async tool(@Param('name') name: string, @CurrentPrincipal() viewer: Principal) {
    const view = await this.registry.readTool(viewer, name);
    if (!view) throw httpError(404, 'TOOL_NOT_FOUND', `tool "${name}" is not published`);
    return view;
  }

  @Get('v1/tools/:name/versions/:version')
  @UseGuards(BearerGuard)
  async version(@Param('name') name: string, @Param('version') version: string, @CurrentPrincipal() viewer: Principal) {
    const found = await this.registry.readVersion(viewer, name, version);
    if (!found) throw httpError(404, 'VERSION_NOT_FOUND', `${name}@${version} is not published`);
    return found;
  }

  /** The classifier's changes from the previous version, with the witness of a breaking one. Publishers and admins. */
  @Get('v1/tools/:name/versions/:version/diff')
  @UseGuards(BearerGuard)
  async diff(@Param('name') name: string, @Param('version') version: string, @CurrentPrincipal() viewer: Principal) {
    const found = unwrap(await this.registry.diffVersion(viewer, name, version));
    if (!found) throw httpError(404, 'VERSION_NOT_FOUND', `${name}@${version} is not published`);
    return found;
  }

  @Get('v1/servers/:name')
  @UseGuards(BearerGuard)
  async server(@Param('name') name: string, @CurrentPrincipal() viewer: Principal) {
    const server = await this.registry.readServer(viewer, name);
    if (!server) throw httpError(404, 'SERVER_NOT_FOUND', `server "${name}" is not registered`);
    return server;
  }
}
