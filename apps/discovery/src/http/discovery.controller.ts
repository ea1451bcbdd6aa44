import { Body, Controller, Get, HttpCode, Inject, Post, UseGuards } from '@nestjs/common';
import { listVisible } from '@estate/catalog';
import { toMcpTool, type Principal } from '@estate/contracts';
import { BearerGuard, CurrentPrincipal, httpError } from '@estate/platform';
import { CatalogProjector } from '../catalog.projector';
import { RebuildTimeout, RebuildUnavailable } from '../catalog.rebuilder';
import { CatalogRepository } from '../store/catalog.repository';
import { parseDiscoverRequest } from './discover.requests';

const isAdmin = (p: Principal): boolean => p.scopes.includes('estate:admin');

@Controller()
@UseGuards(BearerGuard)
export class DiscoveryController {
  constructor(
    @Inject(CatalogRepository) private readonly repo: CatalogRepository,
    @Inject(CatalogProjector) private readonly projector: CatalogProjector,
  ) {}

  /** The tools the caller may see; an admin may ask on behalf of another principal. */
  @Post('v1/discover')
  @HttpCode(200)
  async discover(@CurrentPrincipal() caller: Principal, @Body() body: unknown) {
    const parsed = parseDiscoverRequest(body);
    if (!parsed.ok) throw httpError(400, 'INVALID_REQUEST', 'the discovery request is malformed', { issues: parsed.issues });
    const { principal: asked, pins } = parsed.value;
    if (asked !== undefined && asked.id !== caller.id && !isAdmin(caller)) {
      throw httpError(403, 'FORBIDDEN', 'discovering for another principal needs estate:admin');
    }
    // A non-admin naming itself still gets its own token's rights, never the ones it wrote in the body.
    const principal = asked !== undefined && isAdmin(caller) ? asked : caller;
    const tools = listVisible(await this.repo.allTools(), principal, pins);
    return { principal: principal.id, tools: tools.map(({ version }) => ({ ...toMcpTool(version.spec), version: version.version, status: version.status })) };
  }

  @Get('v1/catalog')
  async catalog(@CurrentPrincipal() caller: Principal) {
    if (!isAdmin(caller) && !caller.scopes.includes('estate:publish')) throw httpError(403, 'FORBIDDEN', 'the full catalog needs estate:admin or estate:publish');
    return { servers: await this.repo.allServers(), tools: await this.repo.allTools(), deadLetters: await this.repo.deadLetterCount() };
  }

  @Post('v1/rebuild')
  @HttpCode(200)
  async rebuild(@CurrentPrincipal() caller: Principal) {
    if (!isAdmin(caller)) throw httpError(403, 'FORBIDDEN', 'rebuilding needs estate:admin');
    return rebuildErrors(() => this.projector.rebuild());
  }

  /** The served catalog against a fresh fold of the event store: `equal` and every difference. */
  @Get('v1/verify')
  async verify(@CurrentPrincipal() caller: Principal) {
    if (!isAdmin(caller)) throw httpError(403, 'FORBIDDEN', 'verifying needs estate:admin');
    const { events, differences } = await rebuildErrors(() => this.projector.verify());
    return { equal: differences.length === 0, events, differences };
  }
}

async function rebuildErrors<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof RebuildTimeout) throw httpError(504, 'REBUILD_TIMEOUT', error.message);
    if (error instanceof RebuildUnavailable) throw httpError(503, 'REBUILD_UNAVAILABLE', error.message);
    throw error;
  }
}
