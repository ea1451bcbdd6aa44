import { checkSummary } from './check.summary';

describe('estate check summary', () => {
  it('names the policy, the strict bump and each change with both verdicts', () => {
    const answer = {
      name: 'shop.order', version: '1.1.0', bump: 'minor', compat: { policy: 'standard', strictBump: 'major' },
      changes: [{
        path: '$.inputSchema.properties.note', kind: 'property-added-optional', breaking: false, bump: 'minor', message: 'note: optional property added',
        narrows: true, witness: { id: 'a', note: 0 }, strict: { bump: 'major', breaking: true },
      }],
    };
    expect(checkSummary(answer)).toBe([
      'policy: standard (ESTATE_COMPAT); under strict this needs: major',
      '  minor  $.inputSchema.properties.note  property-added-optional  strict: major  narrows: the new contract refuses {"id":"a","note":0}',
    ].join('\n'));
  });

  it('reads a refusal too, and says nothing for an answer without a policy', () => {
    const refusal = {
      error: 'BUMP_TOO_SMALL',
      details: {
        required: 'major', declared: 'minor', compat: { policy: 'strict', strictRequired: 'major' },
        changes: [{ path: '$.inputSchema.properties.note', kind: 'property-removed', breaking: true, bump: 'major', witness: { note: 'a' }, strict: { bump: 'major', breaking: true } }],
      },
    };
    expect(checkSummary(refusal)).toBe([
      'policy: strict (ESTATE_COMPAT); under strict this needs: major',
      '  major  $.inputSchema.properties.note  property-removed  strict: major  still accepted and now ignored: {"note":"a"}',
    ].join('\n'));
    expect(checkSummary({ error: 'INVALID_SPEC', details: { issues: [] } })).toBeUndefined();
  });
});
