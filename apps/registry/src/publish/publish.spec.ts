import { classifyToolChange } from '@estate/contracts';
import { classifierFor } from '../domain/tool.decider';
import { BANK, LOOKUP, META, useCases } from '../command/use-case.fixture';
import { registerServer } from '../register-server/register-server.command';
import { cachedClassifier } from './classification.cache';

describe('publish', () => {
  it('publishes against the registered server and answers what was decided', async () => {
    const { register, publish, store } = useCases();
    await register.execute(registerServer(BANK), META);
    expect(await publish.execute(LOOKUP, META)).toEqual({ ok: true, value: { name: 'bank.lookup', version: '1.0.0', bump: 'initial', compat: { policy: 'standard', strictBump: 'initial' }, changes: [] } });
    expect(await store.readStream('tool:bank.lookup')).toMatchObject([{ type: 'ToolVersionPublished', actor: 'alice', correlationId: 'c-1' }]);
  });

  it('refuses a spec naming a server nobody registered, storing nothing', async () => {
    const { publish, store } = useCases();
    expect(await publish.execute(LOOKUP, META)).toMatchObject({ ok: false, error: { code: 'SERVER_NOT_FOUND' } });
    expect(await store.listStreams('')).toEqual([]);
  });

  it('reports a spec without a usable name at $.name, with no stream to load', async () => {
    const { register, publish } = useCases();
    await register.execute(registerServer(BANK), META);
    const outcome = await publish.execute({ ...LOOKUP, name: 42 }, META);
    expect(outcome).toMatchObject({ ok: false, error: { code: 'INVALID_SPEC', details: { issues: [expect.objectContaining({ path: '$.name' })] } } });
  });

  it("keeps another server's namespace from a server without one, storing nothing; its own names still publish", async () => {
    const { register, publish, store } = useCases();
    await register.execute(registerServer(BANK), META);
    await register.execute(registerServer({ ...BANK, name: 'open', namespace: '' }), META);
    const squatted = await publish.execute({ ...LOOKUP, name: 'bank.lookalike', upstream: { server: 'open', tool: 'lookup' } }, META);
    expect(squatted).toMatchObject({ ok: false, error: { code: 'CONTRACT_REJECTED', details: { issues: [expect.objectContaining({ path: '$.name', code: 'namespace_taken' })] } } });
    expect(await store.listStreams('tool:')).toEqual([]);
    expect(await publish.execute({ ...LOOKUP, name: 'lookup', upstream: { server: 'open', tool: 'lookup' } }, META)).toMatchObject({ ok: true });
    expect(await publish.execute({ ...LOOKUP, name: 'other.lookup', upstream: { server: 'open', tool: 'lookup' } }, META)).toMatchObject({ ok: true });
  });

  it('iterates a pre-release to its release: check and publish answer against the last stable version, not the pre-release', async () => {
    const { register, publish, check } = useCases();
    await register.execute(registerServer(BANK), META);
    await publish.execute(LOOKUP, META);
    const renamed = { ...LOOKUP, inputSchema: { ...LOOKUP.inputSchema, properties: { ref: (LOOKUP.inputSchema.properties as Record<string, unknown>).reference }, required: ['ref'] } };
    expect(await publish.execute({ ...renamed, version: '2.0.0-rc.1' }, META)).toMatchObject({ ok: true, value: { bump: 'major' } });
    const release = { ...renamed, version: '2.0.0', title: 'Find a payment' };
    const expected = { ok: true, value: { version: '2.0.0', bump: 'major', compat: { strictBump: 'major' }, changes: expect.arrayContaining([expect.objectContaining({ path: '$.inputSchema.properties.reference', breaking: true })]) } };
    expect(await check.execute(release, META)).toMatchObject(expected);
    expect(await publish.execute(release, META)).toMatchObject(expected);
    // A pre-release of a minor still has to keep 2.0.0's promises.
    const broken = await publish.execute({ ...LOOKUP, version: '2.1.0-rc.1' }, META);
    expect(broken).toMatchObject({ ok: false, error: { code: 'BUMP_TOO_SMALL', message: expect.stringContaining('2.0.0 → 2.1.0-rc.1 is a minor bump but the change needs major') } });
  });

  it('classifies a pair once: a check and then its publish share the cached answer', async () => {
    const classify = jest.fn(classifyToolChange);
    const { register, publish, check } = useCases(cachedClassifier(classifierFor('standard', classify), 10));
    await register.execute(registerServer(BANK), META);
    await publish.execute(LOOKUP, META);
    const next = { ...LOOKUP, version: '1.1.0', title: 'Find a payment by reference' };
    const checked = await check.execute(next, META);
    expect(await publish.execute(next, META)).toEqual(checked);
    expect(classify).toHaveBeenCalledTimes(1);
  });
});
