import { DataClassification } from './tool-spec';
import { Principal, VisibilityFacts, isVisible } from './visibility';

const tool = (facts: Partial<VisibilityFacts> = {}): VisibilityFacts => ({
  requiredScopes: [],
  tenants: [],
  dataClassification: 'public',
  ...facts,
});
const principal = (facts: Partial<Principal> = {}): Principal => ({ id: 'agent-1', scopes: [], clearance: 'public', ...facts });

describe('isVisible', () => {
  it('shows an unrestricted public tool to anyone', () => {
    expect(isVisible(principal(), tool())).toBe(true);
  });

  it.each([
    [['payments:read'], ['payments:read'], true],
    [['payments:read', 'payments:write'], ['payments:read'], true],
    [['payments:read'], ['payments:read', 'payments:write'], false],
    [[], ['payments:read'], false],
  ])('holding %j for required %j is %s', (held, required, expected) => {
    expect(isVisible(principal({ scopes: held }), tool({ requiredScopes: required }))).toBe(expected);
  });

  it.each([
    ['wholesale', [], true],
    ['wholesale', ['wholesale'], true],
    ['retail', ['wholesale'], false],
    ['retail', ['wholesale', 'retail'], true],
    [undefined, [], true],
    [undefined, ['wholesale'], false],
  ])('tenant %s against %j is %s', (tenant, tenants, expected) => {
    expect(isVisible(principal({ tenant }), tool({ tenants }))).toBe(expected);
  });

  const levels: DataClassification[] = ['public', 'internal', 'confidential', 'restricted'];
  const matrix = levels.flatMap((clearance, c) => levels.map((classification, t) => [clearance, classification, c >= t] as const));
  it.each(matrix)('clearance %s sees %s: %s', (clearance, classification, expected) => {
    expect(isVisible(principal({ clearance }), tool({ dataClassification: classification }))).toBe(expected);
  });

  it('needs all three gates at once', () => {
    const spec = tool({ requiredScopes: ['payments:read'], tenants: ['wholesale'], dataClassification: 'confidential' });
    const full = principal({ scopes: ['payments:read'], tenant: 'wholesale', clearance: 'confidential' });
    expect(isVisible(full, spec)).toBe(true);
    expect(isVisible({ ...full, scopes: [] }, spec)).toBe(false);
    expect(isVisible({ ...full, tenant: 'retail' }, spec)).toBe(false);
    expect(isVisible({ ...full, clearance: 'internal' }, spec)).toBe(false);
  });

  it('fails closed on an unknown classification', () => {
    const odd = tool({ dataClassification: 'secret' as DataClassification });
    expect(isVisible(principal({ clearance: 'restricted' }), odd)).toBe(false);
  });
});
