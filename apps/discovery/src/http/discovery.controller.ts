import { Body, Controller, Get, HttpCode, Inject, Post } from '@nestjs/common';
import { listVisible } from '@estate/catalog';
import { toMcpTool, type Principal } from '@estate/contracts';
import { Authenticated, CurrentPrincipal, RequireScope } from '@estate/platform';
import { CatalogProjector } from '../catalog.projector';
import { CatalogRepository } from '../store/catalog.repository';
import { parseDiscoverRequest } from './discover.requests';
import { invalidRequest, rebuildFailure } from './discovery.errors';
import { rebuildAnswer, toHttpError } from './discovery.errors.mapper';

const isAdmin = (p: Principal): boolean => p.scopes.includes('estate:admin');

@Controller()
export class DiscoveryController {
  constructor(
    @Inject(CatalogRepository) private readonly repo: CatalogRepository,
    @Inject(CatalogProjector) private readonly projector: CatalogProjector,
  ) {}

  /** The tools the caller may see; an admin may ask on behalf of another principal. */
  @Post('v1/discover')
  @HttpCode(200)
  @Authenticated()
  async discover(@CurrentPrincipal() caller: Principal, @Body() body: unknown) {
    const parsed = parseDiscoverRequest(body);
    if (!parsed.ok) throw toHttpError(invalidRequest(parsed.issues));
    const { principal: asked, pins } = parsed.value;
    // Who may be asked about depends on the body, so this one check cannot sit on the route.
    if (asked !== undefined && asked.id !== caller.id && !isAdmin(caller)) {
      throw toHttpError({ code: 'FORBIDDEN', message: 'discovering for another principal needs estate:admin' });
    }
    // A non-admin naming itself still gets its own token's rights, never the ones it wrote in the body.
    const principal = asked !== undefined && isAdmin(caller) ? asked : caller;
    const tools = listVisible(await this.repo.allTools(), principal, pins, Date.now());
    return { principal: principal.id, tools: tools.map(({ version }) => ({ ...toMcpTool(version.spec), version: version.version, status: version.status })) };
  }

  @Get('v1/catalog')
  @RequireScope(['estate:admin', 'estate:publish'], 'the full catalog needs estate:admin or estate:publish')
  catalog() {
    return this.repo.catalog();
  }

  @Post('v1/rebuild')
  @HttpCode(200)
  @RequireScope('estate:admin', 'rebuilding needs estate:admin')
  rebuild() {
    return rebuildAnswer(() => this.projector.rebuild(), rebuildFailure);
  }

  /**
   * The served catalog against a fresh fold of the event store (`equal` and every difference), and
   * the catalog topic against the catalog (`catalogTopic`); `ok` when both agree.
   */
  @Get('v1/verify')
  @RequireScope('estate:admin', 'verifying needs estate:admin')
  async verify() {
    const { events, differences, catalogTopic } = await rebuildAnswer(() => this.projector.verify(), rebuildFailure);
    const equal = differences.length === 0;
    return { ok: equal && catalogTopic.equal, equal, events, differences, catalogTopic };
  }
}
