import type { ChangeClassification } from './classifier.types';
import type { Direction } from './bump-policy';
import { classifyWithPrefix } from './schema-diff.classifier';

export { DESCRIPTION_CHANGE_BUMP } from './classifier.types';
export type { ChangeClassification, ChangeKind, SchemaChange } from './classifier.types';
export type { Direction } from './bump-policy';
export { classifyToolChange } from './tool-change.classifier';

/**
 * The who-breaks rule for one schema: does the new contract accept everything the old one
 * accepted (input), or produce only what the old one promised (output)? Stricter input is
 * major, looser input minor; output is the reverse. Annotations are patch, descriptions
 * DESCRIPTION_CHANGE_BUMP; anything that cannot be proven safe is major. A major change
 * comes with a verified witness when one can be built.
 */
export function classifySchemaChange(
  oldSchema: unknown,
  newSchema: unknown,
  direction: Direction = 'input',
): ChangeClassification {
  return classifyWithPrefix(oldSchema, newSchema, direction, '$');
}
