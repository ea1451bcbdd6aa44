import { Controller, Get, Headers, HttpCode, Inject, Module, Res, UseGuards, type DynamicModule } from '@nestjs/common';
import type { Principal } from '@estate/contracts';
import { BearerGuard, CurrentPrincipal, PRINCIPAL_RESOLVER } from '../http/bearer.guard';
import { httpError } from '../http/http-errors';
import type { PrincipalResolver } from '../principal.auth';
import { publicView, runChecks, type HealthCheck } from './health.check';

export const SERVICE_HEALTH = Symbol('ServiceHealth');

/** How long a probe should wait before asking again when the service is not ready. */
export const NOT_READY_RETRY_AFTER_SECONDS = 5;

/** What a service tells about itself: its readiness checks, and figures only an administrator sees. */
export interface ServiceHealth {
  checks: readonly HealthCheck[];
  /** Lag, positions, counts: never shown without an `estate:admin` token. */
  details(): Promise<Record<string, unknown>>;
  checkTimeoutMs: number;
}

interface Headed {
  status(code: number): unknown;
  setHeader(name: string, value: string): unknown;
}

const isAdmin = (principal: Principal): boolean => principal.scopes.includes('estate:admin');

/**
 * `/healthz` says the process answers, nothing more. `/readyz` runs the checks: 200 when all
 * pass, 503 with Retry-After naming the failing ones otherwise; reasons and figures only for an
 * admin token. `/v1/status` is the same report behind authentication, always with its figures.
 */
@Controller()
export class HealthController {
  constructor(
    @Inject(SERVICE_HEALTH) private readonly health: ServiceHealth,
    @Inject(PRINCIPAL_RESOLVER) private readonly resolver: PrincipalResolver,
  ) {}

  @Get('healthz')
  live(): { status: 'ok' } {
    return { status: 'ok' };
  }

  @Get('readyz')
  async ready(@Headers('authorization') authorization: string | undefined, @Res({ passthrough: true }) response: Headed) {
    const readiness = await runChecks(this.health.checks, this.health.checkTimeoutMs);
    if (!readiness.ready) {
      response.status(503);
      response.setHeader('Retry-After', String(NOT_READY_RETRY_AFTER_SECONDS));
    }
    const caller = await this.resolver.resolve(authorization);
    const admin = caller.ok && isAdmin(caller.principal);
    const view = admin ? readiness : publicView(readiness);
    const body = { status: readiness.ready ? 'ready' : 'not_ready', checks: view.checks, failing: view.failing };
    return admin ? { ...body, ...(await this.health.details()) } : body;
  }

  @Get('v1/status')
  @HttpCode(200)
  @UseGuards(BearerGuard)
  async status(@CurrentPrincipal() caller: Principal) {
    if (!isAdmin(caller)) throw httpError(403, 'FORBIDDEN', 'the service status needs estate:admin');
    const readiness = await runChecks(this.health.checks, this.health.checkTimeoutMs);
    return { status: readiness.ready ? 'ready' : 'not_ready', checks: readiness.checks, failing: readiness.failing, ...(await this.health.details()) };
  }
}

@Module({})
export class HealthModule {
  static with(health: ServiceHealth, resolver: PrincipalResolver): DynamicModule {
    return {
      module: HealthModule,
      controllers: [HealthController],
      providers: [{ provide: SERVICE_HEALTH, useValue: health }, { provide: PRINCIPAL_RESOLVER, useValue: resolver }, BearerGuard],
    };
  }
}
