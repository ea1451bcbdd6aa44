export { COMPAT_POLICIES, DEFAULT_COMPAT_POLICY, DESCRIPTION_CHANGE_BUMP, classifySchemaChange, classifyToolChange } from './schema-change.classifier';
export type { ChangeClassification, ChangeKind, CompatPolicy, Direction, SchemaChange } from './schema-change.classifier';
