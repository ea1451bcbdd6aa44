import type { ChangeClassification } from './classifier.types';
import type { Direction } from './bump-policy';
import { type CompatPolicy, DEFAULT_COMPAT_POLICY } from './compat.policy';
import { classifyWithPrefix } from './schema-diff.classifier';

export { DESCRIPTION_CHANGE_BUMP } from './classifier.types';
export type { ChangeClassification, ChangeKind, SchemaChange } from './classifier.types';
export type { Direction } from './bump-policy';
export { COMPAT_POLICIES, DEFAULT_COMPAT_POLICY } from './compat.policy';
export type { CompatPolicy } from './compat.policy';
export { classifyToolChange } from './tool-change.classifier';

/**
 * The who-breaks rule for one schema: does the new contract accept everything the old one
 * accepted (input), or produce only what the old one promised (output)? Stricter input is
 * major, looser input minor; output is the reverse. Annotations are patch, descriptions
 * DESCRIPTION_CHANGE_BUMP; anything that cannot be proven safe is major. A major change
 * comes with a verified witness when one can be built. `policy` decides the one case the
 * usual list and the rule disagree on (see compat.policy.ts); every change also carries what
 * `strict` says about it.
 */
export function classifySchemaChange(
  oldSchema: unknown,
  newSchema: unknown,
  direction: Direction = 'input',
  policy: CompatPolicy = DEFAULT_COMPAT_POLICY,
): ChangeClassification {
  return classifyWithPrefix(oldSchema, newSchema, direction, '$', policy);
}
