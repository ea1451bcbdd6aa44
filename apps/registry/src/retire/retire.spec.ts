import { bankWithTwoVersions, META } from '../command/use-case.fixture';
import { retireToolVersion } from './retire.command';

describe('retire', () => {
  it('retires a version once; retiring it again is refused', async () => {
    const { retire } = await bankWithTwoVersions();
    expect(await retire.execute(retireToolVersion('bank.lookup', '1.0.0', 'gone'), META)).toMatchObject({ ok: true, value: { type: 'ToolVersionRetired' } });
    expect(await retire.execute(retireToolVersion('bank.lookup', '1.0.0', 'gone'), META)).toMatchObject({ ok: false, error: { code: 'INVALID_TRANSITION' } });
  });

  it('answers TOOL_NOT_FOUND for a tool never published', async () => {
    const { retire } = await bankWithTwoVersions();
    expect(await retire.execute(retireToolVersion('bank.nothing', '1.0.0', 'x'), META)).toMatchObject({ ok: false, error: { code: 'TOOL_NOT_FOUND' } });
  });
});
