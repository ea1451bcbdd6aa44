import { formatPath, type PathSegment } from './json-path.util';
import type { ValidationError } from './schema-error.translator';

/**
 * How deep a tool call's arguments may nest objects and arrays, the arguments object being level 1.
 * No published schema describes anything deeper (schemas stop at 64 levels, two per level of
 * properties), and repair, validation and the size check walk values recursively: 3,000 levels of
 * `[[[…]]]` in 6 KB overflowed the stack and answered -32603.
 */
export const MAX_ARGUMENT_DEPTH = 64;

interface Container {
  value: object;
  depth: number;
  parent?: Container;
  key?: PathSegment;
}

/**
 * The first object or array nested deeper than `limit`, as a validation error at its path (keyword
 * `too_deep`); null when the value keeps within it. One walk without recursion, so it cannot
 * overflow whatever the depth, and paths are only built for the one error.
 */
export function argumentDepthError(value: unknown, limit: number = MAX_ARGUMENT_DEPTH): ValidationError | null {
  if (value === null || typeof value !== 'object') return null;
  const stack: Container[] = [{ value, depth: 1 }];
  while (stack.length > 0) {
    const container = stack.pop() as Container;
    if (container.depth > limit) {
      return { path: formatPath(pathOf(container)), keyword: 'too_deep', message: `nests objects and arrays more than ${limit} levels deep` };
    }
    const entries: Array<[PathSegment, unknown]> = Array.isArray(container.value) ? container.value.map((child, index) => [index, child]) : Object.entries(container.value);
    for (const [key, child] of entries) {
      if (child !== null && typeof child === 'object') stack.push({ value: child, depth: container.depth + 1, parent: container, key });
    }
  }
  return null;
}

function pathOf(container: Container): PathSegment[] {
  const segments: PathSegment[] = [];
  for (let at: Container | undefined = container; at?.key !== undefined; at = at.parent) segments.push(at.key);
  return segments.reverse();
}
