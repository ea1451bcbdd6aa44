import { invalidParamsAt } from './revision-error.table';
import { isJsonObject } from './json-rpc-id.guard';
import type { JsonRpcErrorObject } from './json-rpc.types';
import { memberPath } from './json-path.describer';
import { describeJsonType } from './json-value.describer';
import { isPrefixedMetaKey } from './meta-key.guard';
import {
  LOG_LEVELS,
  MCP_META_KEY,
  type ClientCapabilities,
  type Implementation,
  type LogLevel,
  type RequestMeta,
} from './stateless-revision.types';

export type RequestMetaResult =
  | { readonly ok: true; readonly meta: RequestMeta }
  | { readonly ok: false; readonly error: JsonRpcErrorObject };

const META_PATH = 'params._meta';
const VERSION_PATH = memberPath(META_PATH, MCP_META_KEY.protocolVersion);
const CAPABILITIES_PATH = memberPath(META_PATH, MCP_META_KEY.clientCapabilities);

/** True when `params._meta` names a protocol version: the mark of a request sent the stateless way. */
export function declaresRequestVersion(params: unknown): boolean {
  return isJsonObject(params) && isJsonObject(params['_meta']) && Object.hasOwn(params['_meta'], MCP_META_KEY.protocolVersion);
}

/**
 * Reads the per-request protocol fields of a stateless request from its params. The version and
 * the capabilities are required; a missing or mistyped field is -32602 with the member's path.
 * Whether the version is one we speak is not decided here (that is -32022, see the negotiator).
 */
export function parseRequestMeta(params: unknown): RequestMetaResult {
  if (!isJsonObject(params)) return fail('params', `must be an object carrying _meta, got ${describeJsonType(params)}`);
  const meta = params['_meta'];
  if (!isJsonObject(meta)) return fail(META_PATH, `must be an object, got ${describeJsonType(meta)}`);
  const version = meta[MCP_META_KEY.protocolVersion];
  if (typeof version !== 'string' || version === '') return fail(VERSION_PATH, `must be a non-empty string, got ${describeJsonType(version)}`);
  const capabilities = checkClientCapabilities(meta[MCP_META_KEY.clientCapabilities], CAPABILITIES_PATH);
  if (!capabilities.ok) return capabilities;
  const info = optional(meta, MCP_META_KEY.clientInfo, checkImplementation);
  if (!info.ok) return info;
  const level = optional(meta, MCP_META_KEY.logLevel, checkLogLevel);
  if (!level.ok) return level;
  const token = optional(meta, MCP_META_KEY.progressToken, checkProgressToken);
  if (!token.ok) return token;
  return {
    ok: true,
    meta: {
      protocolVersion: version,
      clientCapabilities: capabilities.value,
      ...(info.value === undefined ? {} : { clientInfo: info.value }),
      ...(level.value === undefined ? {} : { logLevel: level.value }),
      ...(token.value === undefined ? {} : { progressToken: token.value }),
    },
  };
}

type Checked<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: JsonRpcErrorObject };

function fail(path: string, reason: string): { ok: false; error: JsonRpcErrorObject } {
  return { ok: false, error: invalidParamsAt(path, reason) };
}

function optional<T>(meta: Record<string, unknown>, key: string, check: (value: unknown, path: string) => Checked<T>): Checked<T | undefined> {
  if (!Object.hasOwn(meta, key) || meta[key] === undefined) return { ok: true, value: undefined };
  return check(meta[key], memberPath(META_PATH, key));
}

/** Checks the members the schema types; any other member is someone's own capability and is kept. */
export function checkClientCapabilities(value: unknown, path: string): Checked<ClientCapabilities> {
  if (!isJsonObject(value)) return fail(path, `must be an object (empty when the client offers nothing), got ${describeJsonType(value)}`);
  const problem =
    objectMember(value, 'roots', path) ??
    mapOfObjects(value, 'experimental', path, false) ??
    mapOfObjects(value, 'extensions', path, true) ??
    nestedObjects(value, 'sampling', ['context', 'tools'], path) ??
    nestedObjects(value, 'elicitation', ['form', 'url'], path);
  return problem ?? { ok: true, value: value as ClientCapabilities };
}

function objectMember(owner: Record<string, unknown>, key: string, path: string): Checked<never> | undefined {
  if (!Object.hasOwn(owner, key) || owner[key] === undefined || isJsonObject(owner[key])) return undefined;
  return fail(memberPath(path, key), `must be an object, got ${describeJsonType(owner[key])}`);
}

function nestedObjects(owner: Record<string, unknown>, key: string, members: readonly string[], path: string): Checked<never> | undefined {
  const own = objectMember(owner, key, path);
  if (own !== undefined || !isJsonObject(owner[key])) return own;
  const inner = owner[key] as Record<string, unknown>;
  for (const member of members) {
    const problem = objectMember(inner, member, memberPath(path, key));
    if (problem !== undefined) return problem;
  }
  return undefined;
}

/** `experimental` and `extensions`: maps whose values are settings objects; extension keys need a prefix. */
function mapOfObjects(owner: Record<string, unknown>, key: string, path: string, prefixedKeys: boolean): Checked<never> | undefined {
  const own = objectMember(owner, key, path);
  if (own !== undefined || !isJsonObject(owner[key])) return own;
  const map = owner[key] as Record<string, unknown>;
  const mapPath = memberPath(path, key);
  for (const [name, settings] of Object.entries(map)) {
    if (prefixedKeys && !isPrefixedMetaKey(name)) return fail(memberPath(mapPath, name), 'an extension identifier must be a prefixed key such as "com.example/name"');
    if (!isJsonObject(settings)) return fail(memberPath(mapPath, name), `must be a settings object, got ${describeJsonType(settings)}`);
  }
  return undefined;
}

export function checkImplementation(value: unknown, path: string): Checked<Implementation> {
  if (!isJsonObject(value)) return fail(path, `must be an object with name and version, got ${describeJsonType(value)}`);
  for (const key of ['name', 'version'] as const) {
    if (typeof value[key] !== 'string') return fail(memberPath(path, key), `must be a string, got ${describeJsonType(value[key])}`);
  }
  for (const key of ['title', 'description', 'websiteUrl'] as const) {
    if (Object.hasOwn(value, key) && typeof value[key] !== 'string') return fail(memberPath(path, key), `must be a string when given, got ${describeJsonType(value[key])}`);
  }
  if (Object.hasOwn(value, 'icons') && !Array.isArray(value['icons'])) return fail(memberPath(path, 'icons'), `must be an array when given, got ${describeJsonType(value['icons'])}`);
  return { ok: true, value: value as Implementation };
}

function checkLogLevel(value: unknown, path: string): Checked<LogLevel> {
  const level = LOG_LEVELS.find((known) => known === value);
  return level !== undefined ? { ok: true, value: level } : fail(path, `must be one of ${LOG_LEVELS.join(', ')}`);
}

function checkProgressToken(value: unknown, path: string): Checked<string | number> {
  if (typeof value === 'string' || Number.isSafeInteger(value)) return { ok: true, value: value as string | number };
  return fail(path, `must be a string or an integer, got ${describeJsonType(value)}`);
}
