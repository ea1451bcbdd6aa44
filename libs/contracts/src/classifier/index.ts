export { DESCRIPTION_CHANGE_BUMP, classifySchemaChange, classifyToolChange } from './schema-change.classifier';
export type { ChangeClassification, ChangeKind, Direction, SchemaChange } from './schema-change.classifier';
