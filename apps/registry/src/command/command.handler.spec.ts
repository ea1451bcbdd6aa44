import { serverDecider, serverStreamId } from '../domain/server.decider';
import { InMemoryEventStore } from '../store/in-memory-event-store';
import { CommandHandler } from './command.handler';
import { BANK, META } from './use-case.fixture';

const register = { type: 'RegisterServer' as const, server: BANK };
const stream = serverStreamId(BANK.name);

describe('the command handler (load → decide → append at the version read → retry)', () => {
  it('appends what the decider decided, stamped with who acted and the correlation id', async () => {
    const store = new InMemoryEventStore();
    const outcome = await new CommandHandler(store).handle(serverDecider, stream, register, META);
    expect(outcome).toEqual({ ok: true, value: { events: [{ type: 'ServerRegistered', version: 2, data: BANK }], state: { status: 'unregistered' } } });
    expect(await store.readStream(stream)).toMatchObject([{ type: 'ServerRegistered', position: 0, actor: 'alice', correlationId: 'c-1' }]);
  });

  it('decides again on the newer state when another writer appended first', async () => {
    const store = new InMemoryEventStore();
    // The competing writer registers a different definition between our read and our append.
    store.beforeNextAppend = () => void store.append(stream, 0, [{ type: 'ServerRegistered', version: 2, data: { ...BANK, owner: 'other' } }], META);
    const outcome = await new CommandHandler(store).handle(serverDecider, stream, register, META);
    expect(outcome).toMatchObject({ ok: false, error: { code: 'SERVER_ALREADY_REGISTERED' } });
    expect(await store.readStream(stream)).toHaveLength(1);
  });

  it('gives up with CONCURRENCY_CONFLICT when the stream keeps moving', async () => {
    const store = new InMemoryEventStore();
    const always = { ...serverDecider, decide: () => ({ ok: true as const, events: [{ type: 'ServerRegistered' as const, version: 2 as const, data: BANK }] }) };
    let competitors = 0;
    const compete = () => {
      competitors += 1;
      void store.append(stream, competitors - 1, [{ type: 'Noise', version: 1, data: {} }], META);
      store.beforeNextAppend = compete;
    };
    store.beforeNextAppend = compete;
    const outcome = await new CommandHandler(store).handle(always, stream, register, META);
    expect(outcome).toMatchObject({ ok: false, error: { code: 'CONCURRENCY_CONFLICT', message: `${stream} kept changing; try again` } });
    expect(competitors).toBe(4);
  });

  it('reads only what was appended since it last folded the stream, another writer\'s events included', async () => {
    const store = new InMemoryEventStore();
    const handler = new CommandHandler(store);
    const reads = jest.spyOn(store, 'readStream');
    await handler.handle(serverDecider, stream, register, META);
    // Another registry instance (its own handler) registers a different definition meanwhile.
    await new CommandHandler(store).handle(serverDecider, serverStreamId('crm'), { ...register, server: { ...BANK, name: 'crm', namespace: 'crm' } }, META);
    await store.append(stream, 1, [{ type: 'ServerRegistered', version: 2, data: { ...BANK, owner: 'other' } }], META);
    expect(await handler.load(serverDecider, stream)).toEqual({ state: { status: 'registered', server: { ...BANK, owner: 'other' } }, version: 2 });
    expect(reads.mock.calls.filter(([id]) => id === stream)).toEqual([[stream, 0], [stream, 1]]);
    expect(await handler.handle(serverDecider, stream, register, META)).toMatchObject({ ok: false, error: { code: 'SERVER_ALREADY_REGISTERED' } });
    expect(reads.mock.calls.at(-1)).toEqual([stream, 2]);
  });

  it('stores nothing for a refusal or a dry run, and answers the same decision', async () => {
    const store = new InMemoryEventStore();
    const handler = new CommandHandler(store);
    expect(await handler.handle(serverDecider, stream, register, META, { dryRun: true })).toMatchObject({ ok: true, value: { events: [{ type: 'ServerRegistered' }] } });
    const refused = await handler.handle(serverDecider, stream, { ...register, server: { ...BANK, namespace: 'elsewhere' } }, META);
    expect(refused).toMatchObject({ ok: false, error: { code: 'NAMESPACE_FORBIDDEN' } });
    expect(await store.listStreams('')).toEqual([]);
  });
});
