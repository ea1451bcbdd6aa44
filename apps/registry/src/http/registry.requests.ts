import { isJsonObject } from '@estate/protocol';
import { inspectPromptText, INSTANT_FORM, parseInstant, unstorableTextPath } from '@estate/contracts';
import type { ServerRegisteredData } from '@estate/events';

export interface RequestIssue {
  path: string;
  message: string;
}

type Parsed<T> = { ok: true; value: T } | { ok: false; issues: RequestIssue[] };

const NAME = /^[A-Za-z0-9_-]{1,64}$/;
const SERVER_FIELDS = ['name', 'namespace', 'transport', 'url', 'command', 'args', 'owner', 'allowSampling', 'allowElicitation', 'sessionAffinity'];
const DEPRECATION_FIELDS = ['reason', 'sunsetAt', 'replacement'];
const RETIREMENT_FIELDS = ['reason'];

/** Text PostgreSQL cannot store never becomes a fact: refused with the path of the first one. */
function unstorableText(body: Record<string, unknown>): RequestIssue[] {
  const path = unstorableTextPath(body);
  return path === undefined ? [] : [{ path, message: 'contains U+0000 or a lone UTF-16 surrogate, which cannot be stored' }];
}

/** A misspelt field (`replacment`) must not be silently dropped: the caller would believe it was applied. */
function unknownFields(body: Record<string, unknown>, known: readonly string[]): RequestIssue[] {
  return Object.keys(body)
    .filter((key) => !known.includes(key))
    .sort()
    .map((key) => ({ path: `$.${key}`, message: 'is not a known field' }));
}


/** `POST /v1/servers` body: every problem reported with its path. */
export function parseRegisterServer(body: unknown): Parsed<ServerRegisteredData> {
  if (!isJsonObject(body)) return { ok: false, issues: [{ path: '$', message: 'body must be a JSON object' }] };
  const issues = [...unknownFields(body, SERVER_FIELDS), ...unstorableText(body)];
  const { name, namespace, transport = 'streamable-http', url, command, args, owner, allowSampling = false, allowElicitation = false, sessionAffinity = false } = body;
  if (typeof name !== 'string' || !NAME.test(name)) issues.push({ path: '$.name', message: 'name must match [A-Za-z0-9_-]{1,64}' });
  if (namespace !== undefined && typeof namespace !== 'string') issues.push({ path: '$.namespace', message: 'namespace must be a string' });
  if (transport !== 'streamable-http' && transport !== 'stdio') issues.push({ path: '$.transport', message: 'transport must be "streamable-http" or "stdio"' });
  if (transport === 'streamable-http' && !isHttpUrl(url)) issues.push({ path: '$.url', message: 'an http(s) url is required for streamable-http' });
  // The event store keeps a registration for good, and publishers and admins read it back.
  else if (transport === 'streamable-http' && hasCredentials(url as string)) issues.push({ path: '$.url', message: 'credentials in the url would be stored for good in the event log and shown to every publisher; leave them out' });
  if (transport === 'stdio' && (typeof command !== 'string' || command.length === 0)) issues.push({ path: '$.command', message: 'a command is required for stdio' });
  if (args !== undefined && (!Array.isArray(args) || !args.every((a) => typeof a === 'string'))) issues.push({ path: '$.args', message: 'args must be an array of strings' });
  if (typeof owner !== 'string' || owner.length === 0) issues.push({ path: '$.owner', message: 'owner is required' });
  if (typeof allowSampling !== 'boolean') issues.push({ path: '$.allowSampling', message: 'allowSampling must be a boolean' });
  if (typeof allowElicitation !== 'boolean') issues.push({ path: '$.allowElicitation', message: 'allowElicitation must be a boolean' });
  if (typeof sessionAffinity !== 'boolean') issues.push({ path: '$.sessionAffinity', message: 'sessionAffinity must be a boolean' });
  if (issues.length > 0) return { ok: false, issues };
  const server: ServerRegisteredData = {
    name: name as string,
    namespace: (namespace as string | undefined) ?? (name as string),
    transport: transport as ServerRegisteredData['transport'],
    owner: owner as string,
    allowSampling: allowSampling as boolean,
    allowElicitation: allowElicitation as boolean,
    ...(sessionAffinity ? { sessionAffinity: true } : {}),
  };
  if (transport === 'streamable-http') server.url = url as string;
  else {
    server.command = command as string;
    server.args = (args as string[] | undefined) ?? [];
  }
  return { ok: true, value: server };
}

export interface LifecycleBody {
  reason: string;
  sunsetAt?: string;
  replacement?: string;
}

/**
 * A deprecation's sunset: a real instant with its zone (without one it would be read in the
 * server's zone), still ahead (one already past would retire the version at the next sweep: that is
 * a retirement, asked for by its own route).
 */
function sunsetIssue(value: unknown, now: number): string | undefined {
  const instant = typeof value === 'string' ? parseInstant(value) : undefined;
  if (!instant?.ok) return `sunsetAt must be ${INSTANT_FORM}, naming a real day`;
  if (instant.time <= now) return 'sunsetAt must lie in the future; to retire the version now, POST …/retire';
  return undefined;
}

export function parseLifecycleBody(body: unknown, allowSunset: boolean, now = Date.now()): Parsed<LifecycleBody> {
  if (!isJsonObject(body)) return { ok: false, issues: [{ path: '$', message: 'body must be a JSON object' }] };
  const issues = [...unknownFields(body, allowSunset ? DEPRECATION_FIELDS : RETIREMENT_FIELDS), ...unstorableText(body)];
  if (body.reason === undefined) issues.push({ path: '$.reason', message: 'reason is required' });
  else if (typeof body.reason !== 'string' || body.reason.trim().length === 0) issues.push({ path: '$.reason', message: 'reason must be a non-empty string' });
  else issues.push(...reasonIssues(body.reason));
  const sunset = allowSunset && body.sunsetAt !== undefined ? sunsetIssue(body.sunsetAt, now) : undefined;
  if (sunset) issues.push({ path: '$.sunsetAt', message: sunset });
  if (allowSunset && body.replacement !== undefined && typeof body.replacement !== 'string') {
    issues.push({ path: '$.replacement', message: 'replacement must be a version string' });
  }
  if (issues.length > 0) return { ok: false, issues };
  const value: LifecycleBody = { reason: body.reason as string };
  if (allowSunset && body.sunsetAt !== undefined) value.sunsetAt = new Date(body.sunsetAt as string).toISOString();
  if (allowSunset && body.replacement !== undefined) value.replacement = body.replacement as string;
  return { ok: true, value };
}

/** A reason is told to every agent still calling the version (a log message and `_meta`): short, and held to the rules of any text a model reads. */
export const MAX_REASON_CHARS = 1_000;

function reasonIssues(reason: string): RequestIssue[] {
  if (reason.length > MAX_REASON_CHARS) return [{ path: '$.reason', message: `reason must be at most ${MAX_REASON_CHARS} characters` }];
  return inspectPromptText(reason, '$.reason').map((issue) => ({ path: issue.path, message: `${issue.code}: ${issue.message}` }));
}

function hasCredentials(value: string): boolean {
  const url = new URL(value);
  return url.username !== '' || url.password !== '';
}

function isHttpUrl(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}
