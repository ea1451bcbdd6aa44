import { Body, Controller, HttpCode, Inject, Param, Post } from '@nestjs/common';
import type { ServerRegisteredData } from '@estate/events';
import type { Principal } from '@estate/contracts';
import { CurrentPrincipal, RequireScope } from '@estate/platform';
import { CheckHandler } from '../check/check.handler';
import { deprecateToolVersion } from '../deprecate/deprecate.command';
import { DeprecateHandler } from '../deprecate/deprecate.handler';
import { PublishHandler } from '../publish/publish.handler';
import { quarantineToolVersion } from '../quarantine/quarantine.command';
import { QuarantineHandler } from '../quarantine/quarantine.handler';
import { registerServer } from '../register-server/register-server.command';
import { RegisterServerHandler } from '../register-server/register-server.handler';
import { retireToolVersion } from '../retire/retire.command';
import { RetireHandler } from '../retire/retire.handler';
import { readsGovernance } from '../domain/registry-read.policy';
import type { AppendMeta } from '../store/event-store.port';
import { CommandMeta } from './command-meta.decorator';
import { answer } from './registry.answers';
import { parseLifecycleBody, parseRegisterServer, type LifecycleBody } from './registry.requests';
import { parsedBody } from './request-body.pipe';

const deprecation = parsedBody((body) => parseLifecycleBody(body, true), 'deprecation');
const retirement = parsedBody((body) => parseLifecycleBody(body, false), 'retirement');
const quarantine = parsedBody((body) => parseLifecycleBody(body, false), 'quarantine');
const registration = parsedBody(parseRegisterServer, 'server registration');

/** The registry's commands: who may call each is declared on its route, what it does is its use case. */
@Controller()
export class RegistryController {
  constructor(
    @Inject(RegisterServerHandler) private readonly registering: RegisterServerHandler,
    @Inject(PublishHandler) private readonly publishing: PublishHandler,
    @Inject(CheckHandler) private readonly checking: CheckHandler,
    @Inject(DeprecateHandler) private readonly deprecating: DeprecateHandler,
    @Inject(RetireHandler) private readonly retiring: RetireHandler,
    @Inject(QuarantineHandler) private readonly quarantining: QuarantineHandler,
  ) {}

  @Post('v1/servers')
  @RequireScope('estate:admin', 'registering a server needs the estate:admin scope')
  registerServer(@Body(registration) server: ServerRegisteredData, @CommandMeta() meta: AppendMeta) {
    return answer(this.registering.execute(registerServer(server), meta));
  }

  @Post('v1/tools')
  @RequireScope('estate:publish')
  publish(@Body() spec: unknown, @CommandMeta() meta: AppendMeta) {
    return answer(this.publishing.execute(spec, meta));
  }

  @Post('v1/tools/check')
  @HttpCode(200)
  @RequireScope('estate:publish')
  check(@Body() spec: unknown, @CommandMeta() meta: AppendMeta) {
    return answer(this.checking.execute(spec, meta));
  }

  @Post('v1/tools/:name/versions/:version/deprecate')
  @HttpCode(200)
  @RequireScope('estate:publish')
  deprecate(@Param('name') name: string, @Param('version') version: string, @Body(deprecation) body: LifecycleBody, @CommandMeta() meta: AppendMeta) {
    return answer(this.deprecating.execute(deprecateToolVersion(name, version, body), meta));
  }

  @Post('v1/tools/:name/versions/:version/retire')
  @HttpCode(200)
  @RequireScope('estate:publish')
  retire(@Param('name') name: string, @Param('version') version: string, @Body(retirement) body: LifecycleBody, @CommandMeta() meta: AppendMeta) {
    return answer(this.retiring.execute(retireToolVersion(name, version, body.reason), meta));
  }

  /**
   * Quarantine by hand: estate:quarantine is enough (edges report drift over the bus,
   * drift-quarantine/). Such a responder acts on the versions it may see; the others answer as missing.
   */
  @Post('v1/tools/:name/versions/:version/quarantine')
  @HttpCode(200)
  @RequireScope(['estate:quarantine', 'estate:publish'])
  quarantine(
    @Param('name') name: string, @Param('version') version: string, @Body(quarantine) body: LifecycleBody,
    @CommandMeta() meta: AppendMeta, @CurrentPrincipal() caller: Principal,
  ) {
    return answer(this.quarantining.execute(quarantineToolVersion(name, version, body.reason, readsGovernance(caller) ? undefined : caller), meta));
  }
}
