import * as contracts from './index';

describe('@estate/contracts public surface', () => {
  it.each([
    'parseToolSpec',
    'lintToolSpec',
    'inspectPromptText',
    'inspectPromptTree',
    'isCleanPromptText',
    'normalisePromptText',
    'findHiddenCharacters',
    'toMcpTool',
    'isRetryable',
    'classificationRank',
    'validate',
    'compileValidator',
    'checkSchemaDialect',
    'repair',
    'parseVersion',
    'isValidConstraint',
    'satisfies',
    'bumpBetween',
    'bumpRank',
    'resolveVersion',
    'isVisible',
    'classifySchemaChange',
    'classifyToolChange',
  ])('exports the function %s', (name) => {
    expect(typeof (contracts as Record<string, unknown>)[name]).toBe('function');
  });

  it('exports the mapping constants', () => {
    expect(contracts.RETRYABLE_BY_SIDE_EFFECT.write).toBe(false);
    expect(contracts.CLASSIFICATION_RANK.restricted).toBe(3);
    expect(contracts.DESCRIPTION_CHANGE_BUMP).toBeDefined();
    expect(Object.keys(contracts.PROMPT_TEXT_RULES)).toContain('instruction_override');
  });
});
