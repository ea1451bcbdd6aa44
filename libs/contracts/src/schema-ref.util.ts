import { isRecord } from './json-path.util';
import type { JsonSchema } from './schema-dialect.policy';

const MAX_REF_HOPS = 32;

/**
 * Follows local `$ref`s (`#`, `#/$defs/x`, `#/definitions/x`, any JSON pointer into the
 * root) and returns the effective object schema; keywords beside a `$ref` win over the
 * target's (2020-12 applies both). Boolean, remote or unresolvable refs give what is
 * known without them; `undefined` means "no constraints we can use".
 */
export function resolveLocalSchema(
  schema: JsonSchema | undefined,
  root: JsonSchema,
): Record<string, unknown> | undefined {
  let current: unknown = schema;
  for (let hop = 0; hop < MAX_REF_HOPS; hop += 1) {
    if (!isRecord(current)) return undefined;
    if (typeof current.$ref !== 'string') return current;
    const { $ref, ...siblings } = current;
    const target = pointerTarget($ref as string, root);
    if (!isRecord(target)) return siblings;
    current = { ...target, ...siblings };
  }
  return undefined;
}

function pointerTarget(ref: string, root: JsonSchema): unknown {
  if (!ref.startsWith('#')) return undefined;
  const pointer = safeDecode(ref.slice(1));
  if (pointer === undefined || (pointer !== '' && !pointer.startsWith('/'))) return undefined;
  if (pointer === '') return root;
  let current: unknown = root;
  for (const raw of pointer.slice(1).split('/')) {
    const token = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(current)) current = current[Number(token)];
    else if (isRecord(current) && Object.prototype.hasOwnProperty.call(current, token)) current = current[token];
    else return undefined;
  }
  return current;
}

function safeDecode(text: string): string | undefined {
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
}
