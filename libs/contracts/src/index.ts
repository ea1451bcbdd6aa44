// Public surface of @estate/contracts: the tool contract and the rules around it.
export { fail, ok } from './contract.types';
export type { ContractIssue, Result } from './contract.types';

export { comparePaths, formatPath } from './json-path.util';
export type { PathSegment } from './json-path.util';

export {
  CLASSIFICATION_RANK,
  DATA_CLASSIFICATIONS,
  RETRYABLE_BY_SIDE_EFFECT,
  SIDE_EFFECTS,
  classificationRank,
  isRetryable,
  toMcpTool,
} from './tool-spec';
export type { DataClassification, JsonSchema, McpTool, McpToolAnnotations, SideEffect, ToolSpec } from './tool-spec';
export { parseToolSpec, sortIssues } from './tool-spec.parser';
export { TOOL_NAME_PATTERN, lintToolSpec } from './tool-spec.lint';
export { escapeUnstorable, hasUnstorableText, storableTextIssues, unstorableTextPath } from './storable-text';
export { INSTANT_FORM, parseInstant, type Instant } from './iso-instant';
export type { LintOptions } from './tool-spec.lint';

// The prompt-text filter: the rules publishing applies to every text a model reads, exported
// for other text (prompts and resources relayed from upstreams).
export { PROMPT_TEXT_RULES, inspectPromptText, isCleanPromptText } from './prompt-text.rules';
export type { PromptTextContext, PromptTextRuleId } from './prompt-text.rules';
export { inspectPromptTree } from './prompt-text.walker';
export { findHiddenCharacters, normalisePromptText } from './prompt-text.unicode';
export type { HiddenCharacter, NormalisedText } from './prompt-text.unicode';

export { DRAFT_07_URI, DRAFT_2020_12_URI, checkSchemaDialect, schemaDialectOf } from './schema-dialect.policy';
export type { SchemaDialect } from './schema-dialect.policy';
export { VALIDATOR_CACHE_LIMIT, checkSchema, compileValidator, validate } from './schema.validator';
export type { CompiledValidator, ValidationError, ValidationResult } from './schema.validator';
export { stableStringify } from './schema-hash.util';

export { repair } from './repair';
export { MAX_ARGUMENT_DEPTH, argumentDepthError } from './argument-depth.guard';
export type { RepairChange, RepairKind, RepairOutcome } from './repair';

export {
  BUMP_RANK,
  bumpBetween,
  bumpRank,
  isStableVersion,
  isStrictVersion,
  isValidConstraint,
  parseVersion,
  resolveVersion,
  satisfies,
} from './semver.policy';
export type { Bump, VersionCandidate, VersionStatus } from './semver.policy';

export { isVisible } from './visibility';
export type { Principal, VisibilityFacts } from './visibility';

// The schema-change classifier (the who-breaks rule) lives in ./classifier.
export {
  COMPAT_POLICIES, DEFAULT_COMPAT_POLICY, DESCRIPTION_CHANGE_BUMP, classifySchemaChange, classifyToolChange,
} from './classifier/schema-change.classifier';
export type { ChangeClassification, CompatPolicy, SchemaChange } from './classifier/schema-change.classifier';
