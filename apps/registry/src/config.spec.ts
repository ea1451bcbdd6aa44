import { loadRegistryConfig } from './config';

describe('the registry configuration', () => {
  const base = { ESTATE_JWT_SECRET: 'a-test-secret-of-enough-length' };

  it('reads ESTATE_COMPAT: standard by default, strict when asked', () => {
    expect(loadRegistryConfig(base).compat).toBe('standard');
    expect(loadRegistryConfig({ ...base, ESTATE_COMPAT: 'strict' }).compat).toBe('strict');
  });

  it('refuses an unknown policy at boot, naming the setting and the choices', () => {
    expect(() => loadRegistryConfig({ ...base, ESTATE_COMPAT: 'lenient' })).toThrow('ESTATE_COMPAT must be one of standard, strict, got "lenient"');
  });
});
