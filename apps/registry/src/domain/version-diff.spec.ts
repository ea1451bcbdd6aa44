import type { ToolSpec } from '@estate/contracts';
import { bankSpecs } from '../../../../examples/bank/bank.specs';
import { evolveToolAll, initialToolState, type ToolEvent } from './tool.decider';
import { versionDiffFor } from './version-diff';

const [lookup] = bankSpecs('bank');
const published = (version: string, extra: Partial<ToolSpec> = {}): ToolEvent => ({
  type: 'ToolVersionPublished', version: 1, data: { spec: { ...lookup, version, ...extra }, bump: 'major', changes: [] },
});

describe('version diff', () => {
  // Given 1.0.0, then two pre-releases and the release of 2.0.0, each retitled
  const state = evolveToolAll(initialToolState(), [
    published('1.0.0'), published('2.0.0-rc.1', { title: 'A' }), published('2.0.0-rc.2', { title: 'B' }), published('2.0.0', { title: 'C' }),
  ]);

  it('shows a version against the baseline its publish was measured from: the last stable version, not a pre-release', () => {
    for (const version of ['2.0.0-rc.1', '2.0.0-rc.2', '2.0.0']) {
      expect(versionDiffFor('bank.lookup', state, version)).toMatchObject({ previous: '1.0.0', declared: 'major', changes: [expect.objectContaining({ path: '$.title' })] });
    }
  });

  it('has no previous for a version with no stable one below it', () => {
    const early = evolveToolAll(initialToolState(), [published('0.1.0-alpha.1'), published('0.1.0', { title: 'A' })]);
    expect(versionDiffFor('bank.lookup', early, '0.1.0')).toEqual({ name: 'bank.lookup', version: '0.1.0', previous: null, declared: null, required: null, changes: [] });
  });
});
