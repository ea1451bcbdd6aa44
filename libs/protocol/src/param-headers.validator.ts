import { decodeHeaderValue } from './header-value.decoder';
import { isJsonObject } from './json-rpc-id.guard';
import type { JsonRpcErrorObject } from './json-rpc.types';
import { memberPath } from './json-path.describer';
import { describeJsonType, quoteForMessage } from './json-value.describer';
import { readHeader, type HttpHeaders } from './request-headers.validator';
import { headerMismatchError } from './revision-error.table';

/*
 * A tool may ask for some of its arguments to be mirrored into `Mcp-Param-<Name>` headers (the
 * `x-mcp-header` keyword in its inputSchema), so a router can act on them. The annotation is only
 * valid on a string, integer or boolean property reached from the root through `properties`
 * alone; a server that reads the body must check each such header against the argument.
 */

export const PARAM_HEADER_KEYWORD = 'x-mcp-header';
export const PARAM_HEADER_PREFIX = 'Mcp-Param-';

export interface ParamHeader {
  /** The header is `Mcp-Param-<name>`. */
  readonly name: string;
  /** Property names from the arguments object down to the annotated value. */
  readonly path: readonly string[];
  readonly type: 'string' | 'integer' | 'boolean';
}

export type ParamHeadersResult = { readonly ok: true; readonly headers: readonly ParamHeader[] } | { readonly ok: false; readonly reason: string };

/** RFC 9110 field-name token characters. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const PRIMITIVE = ['string', 'integer', 'boolean'] as const;

/**
 * The mirrored headers a tool's inputSchema declares, or why the tool definition is invalid (a
 * client must then leave the tool out of its list). A schema without the keyword declares none.
 */
export function paramHeadersOf(inputSchema: unknown): ParamHeadersResult {
  const found: ParamHeader[] = [];
  const reachable = new Set<unknown>();
  const problem = collectReachable(inputSchema, [], found, reachable);
  if (problem !== null) return { ok: false, reason: problem };
  const stray = findStray(inputSchema, 'inputSchema', reachable);
  if (stray !== null) return { ok: false, reason: `${PARAM_HEADER_KEYWORD} at ${stray} is not reached from the root through properties alone` };
  const seen = new Set<string>();
  for (const header of found) {
    const key = header.name.toLowerCase();
    if (seen.has(key)) return { ok: false, reason: `${PARAM_HEADER_KEYWORD} value ${quoteForMessage(header.name)} is used twice (names compare without case)` };
    seen.add(key);
  }
  return { ok: true, headers: found };
}

function collectReachable(schema: unknown, path: readonly string[], found: ParamHeader[], reachable: Set<unknown>): string | null {
  if (!isJsonObject(schema)) return null;
  if (Object.hasOwn(schema, PARAM_HEADER_KEYWORD) && path.length > 0) {
    reachable.add(schema);
    const name = schema[PARAM_HEADER_KEYWORD];
    const where = path.join('.');
    if (typeof name !== 'string' || !TOKEN.test(name)) return `${PARAM_HEADER_KEYWORD} on ${where} must be a non-empty header-name token`;
    const type = PRIMITIVE.find((primitive) => primitive === schema['type']);
    if (type === undefined) return `${PARAM_HEADER_KEYWORD} on ${where} needs type string, integer or boolean (number is not allowed)`;
    found.push({ name, path, type });
  }
  const properties = schema['properties'];
  if (!isJsonObject(properties)) return null;
  for (const [key, child] of Object.entries(properties)) {
    const problem = collectReachable(child, [...path, key], found, reachable);
    if (problem !== null) return problem;
  }
  return null;
}

/** Path of an annotation the properties walk did not reach (under items, anyOf, $defs…), else null. */
function findStray(node: unknown, where: string, reachable: Set<unknown>, inPropertiesMap = false): string | null {
  if (Array.isArray(node)) {
    for (const [index, item] of node.entries()) {
      const stray = findStray(item, `${where}[${index}]`, reachable);
      if (stray !== null) return stray;
    }
    return null;
  }
  if (!isJsonObject(node)) return null;
  // Keys of a `properties` map are argument names, not keywords: an argument may be called x-mcp-header.
  if (!inPropertiesMap && Object.hasOwn(node, PARAM_HEADER_KEYWORD) && !reachable.has(node)) return where;
  for (const [key, child] of Object.entries(node)) {
    const stray = findStray(child, memberPath(where, key), reachable, !inPropertiesMap && key === 'properties');
    if (stray !== null) return stray;
  }
  return null;
}

/**
 * Checks each declared `Mcp-Param-*` header against the call's arguments: a value in the body
 * needs its header, a header needs a value in the body, and the two must agree (integers compare
 * as numbers). Headers the tool does not declare are ignored. null means they agree.
 */
export function checkParamHeaders(headers: HttpHeaders, declared: readonly ParamHeader[], args: unknown): JsonRpcErrorObject | null {
  for (const param of declared) {
    const headerName = `${PARAM_HEADER_PREFIX}${param.name}`;
    const value = valueAt(args, param.path);
    const argument = `params.arguments.${param.path.join('.')}`;
    const header = readHeader(headers, headerName);
    if (value === undefined || value === null) {
      if (header.present) return headerMismatchError(`${headerName} header is sent but ${argument} has no value`);
      continue;
    }
    if (!header.present) return headerMismatchError(`required header ${headerName} is missing for ${argument}`);
    if (!('value' in header)) return headerMismatchError(`${headerName} header is sent more than once`);
    const decoded = decodeHeaderValue(header.value);
    if (!decoded.ok) return headerMismatchError(`${headerName} header ${decoded.reason}`);
    if (!agrees(decoded.value, value)) return headerMismatchError(`${headerName} header value ${quoteForMessage(decoded.value)} does not match body value ${bodyValueText(value)} at ${argument}`);
  }
  return null;
}

/** A header mirrors a scalar; an object or array is named by its type, never serialised (it may be huge, or nested past the stack). */
function bodyValueText(value: unknown): string {
  return typeof value === 'object' && value !== null ? `of type ${describeJsonType(value)}` : quoteForMessage(JSON.stringify(value));
}

function valueAt(args: unknown, path: readonly string[]): unknown {
  let current = args;
  for (const key of path) {
    if (!isJsonObject(current) || !Object.hasOwn(current, key)) return undefined;
    current = current[key];
  }
  return current;
}

function agrees(headerText: string, bodyValue: unknown): boolean {
  if (typeof bodyValue === 'string') return headerText === bodyValue;
  if (typeof bodyValue === 'boolean') return headerText === String(bodyValue);
  if (typeof bodyValue === 'number') return /^\s*-?\d+(\.\d+)?\s*$/.test(headerText) && Number(headerText) === bodyValue;
  return false;
}
