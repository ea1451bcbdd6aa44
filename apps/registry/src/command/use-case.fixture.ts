import { DEFAULT_COMPAT_POLICY } from '@estate/contracts';
import type { ServerRegisteredData } from '@estate/events';
import { bankSpecs } from '../../../../examples/bank/bank.specs';
import { CheckHandler } from '../check/check.handler';
import { DeprecateHandler } from '../deprecate/deprecate.handler';
import { classifierFor, toolDecider, type ClassifyChange } from '../domain/tool.decider';
import { PublishHandler } from '../publish/publish.handler';
import { QuarantineHandler } from '../quarantine/quarantine.handler';
import { RegisterServerHandler } from '../register-server/register-server.handler';
import { RetireHandler } from '../retire/retire.handler';
import { InMemoryEventStore } from '../store/in-memory-event-store';
import { SunsetHandler } from '../sunset/sunset.handler';
import { CommandHandler } from './command.handler';

export const BANK: ServerRegisteredData = {
  name: 'bank', namespace: 'bank', transport: 'streamable-http', url: 'http://127.0.0.1:9/mcp',
  owner: 'payments-team', allowSampling: false, allowElicitation: false,
};
export const [LOOKUP] = bankSpecs('bank');
export const META = { actor: 'alice', correlationId: 'c-1' };

/** Every use case over one in-memory store, wired as the module wires them: what a use-case spec drives. */
export function useCases(classify: ClassifyChange = classifierFor(DEFAULT_COMPAT_POLICY)) {
  const store = new InMemoryEventStore();
  const commands = new CommandHandler(store);
  const tools = toolDecider(classify);
  const publish = new PublishHandler(commands, tools, classify);
  return {
    store,
    commands,
    register: new RegisterServerHandler(commands, tools),
    publish,
    check: new CheckHandler(publish),
    deprecate: new DeprecateHandler(commands, tools),
    retire: new RetireHandler(commands, tools),
    quarantine: new QuarantineHandler(commands, tools),
    sunset: new SunsetHandler(commands, tools),
  };
}

/** The bank server registered and its lookup tool published at 1.0.0 and 1.1.0. */
export async function bankWithTwoVersions(classify?: ClassifyChange): Promise<ReturnType<typeof useCases>> {
  const cases = useCases(classify);
  await cases.register.execute({ type: 'RegisterServer', server: BANK }, META);
  for (const version of ['1.0.0', '1.1.0']) {
    const outcome = await cases.publish.execute({ ...LOOKUP, version }, META);
    if (!outcome.ok) throw new Error(`fixture publish failed: ${outcome.error.message}`);
  }
  return cases;
}
