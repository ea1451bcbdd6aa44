import { isJsonObject } from './json-rpc-id.guard';
import { LATEST_PROTOCOL_VERSION, negotiateProtocolVersion, SUPPORTED_PROTOCOL_VERSIONS, type ProtocolVersion } from './protocol-version.negotiator';

/** What one session revision added to what a server sends, read from that revision's schema.ts. */
interface RevisionAdditions {
  readonly serverCapabilities: readonly string[];
  readonly toolFields: readonly string[];
  readonly callResultFields: readonly string[];
  /** Server-to-client requests that first appear in this revision. */
  readonly requests: readonly string[];
  readonly elicitationFields: readonly string[];
}

/**
 * The changelog of the session revisions, as far as the edge sends it: a session is sent nothing
 * that a revision newer than its own added. One table, so a new revision is one new row.
 */
const ADDED_IN: Readonly<Record<ProtocolVersion, RevisionAdditions>> = {
  '2024-11-05': { serverCapabilities: [], toolFields: [], callResultFields: [], requests: [], elicitationFields: [] },
  '2025-03-26': { serverCapabilities: ['completions'], toolFields: ['annotations'], callResultFields: [], requests: [], elicitationFields: [] },
  '2025-06-18': { serverCapabilities: [], toolFields: ['title', 'outputSchema', '_meta'], callResultFields: ['structuredContent'], requests: ['elicitation/create'], elicitationFields: [] },
  '2025-11-25': { serverCapabilities: ['tasks'], toolFields: ['icons', 'execution'], callResultFields: [], requests: [], elicitationFields: ['mode'] },
};

/**
 * What the edge sends a session, shaped for the revision the session negotiated. Every shaping
 * returns its input itself when there is nothing to take out, so the newest revision costs a
 * call and no allocation.
 */
export interface SessionRevision {
  readonly version: ProtocolVersion;
  /** The newest revision: everything goes out as built. */
  readonly current: boolean;
  serverCapabilities<T extends object>(capabilities: T): T;
  /** One tools/list entry. */
  tool<T extends object>(tool: T): T;
  /**
   * A tools/call result. Where structuredContent goes, its JSON stays in `content` as text (the
   * 2025-06-18 spec asks tools to send both, for exactly these clients): added when no text block
   * already holds it.
   */
  callResult<T extends object>(result: T): T;
  /** Whether this revision has the server-to-client request at all. */
  hasRequest(method: string): boolean;
  /** elicitation/create params for this revision; undefined when it cannot carry them (a URL elicitation before 2025-11-25). */
  elicitation<T extends object>(params: T): T | undefined;
}

class ShapedRevision implements SessionRevision {
  readonly current: boolean;
  private readonly missing: RevisionAdditions;

  constructor(readonly version: ProtocolVersion) {
    this.current = version === LATEST_PROTOCOL_VERSION;
    const newer = SUPPORTED_PROTOCOL_VERSIONS.slice(0, SUPPORTED_PROTOCOL_VERSIONS.indexOf(version)).map((later) => ADDED_IN[later]);
    const union = (pick: (added: RevisionAdditions) => readonly string[]) => newer.flatMap(pick);
    this.missing = {
      serverCapabilities: union((a) => a.serverCapabilities),
      toolFields: union((a) => a.toolFields),
      callResultFields: union((a) => a.callResultFields),
      requests: union((a) => a.requests),
      elicitationFields: union((a) => a.elicitationFields),
    };
  }

  serverCapabilities<T extends object>(capabilities: T): T {
    return without(capabilities, this.missing.serverCapabilities);
  }

  tool<T extends object>(tool: T): T {
    return without(tool, this.missing.toolFields);
  }

  callResult<T extends object>(result: T): T {
    const shaped = without(result, this.missing.callResultFields);
    if (shaped === result || !('structuredContent' in result)) return shaped;
    return withStructuredText(shaped, (result as { structuredContent?: unknown }).structuredContent);
  }

  hasRequest(method: string): boolean {
    return !this.missing.requests.includes(method);
  }

  elicitation<T extends object>(params: T): T | undefined {
    if (!this.hasRequest('elicitation/create')) return undefined;
    const mode = (params as { mode?: unknown }).mode;
    if (this.missing.elicitationFields.includes('mode') && mode !== undefined && mode !== 'form') return undefined;
    return without(params, this.missing.elicitationFields);
  }
}

const REVISIONS = new Map<string, SessionRevision>(SUPPORTED_PROTOCOL_VERSIONS.map((version) => [version, new ShapedRevision(version)]));

/** The shaping for a negotiated session revision (a version we do not speak reads as the newest, as initialize answers it). */
export function sessionRevision(version: unknown): SessionRevision {
  return REVISIONS.get(negotiateProtocolVersion(version)) as SessionRevision;
}

/** `value` itself when it has none of `keys`: a plain loop, so the newest revision (no keys) allocates nothing, not even a closure. */
function without<T extends object>(value: T, keys: readonly string[]): T {
  let present = false;
  for (let i = 0; i < keys.length && !present; i += 1) present = keys[i] in value;
  if (!present) return value;
  const copy: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) if (!keys.includes(key)) copy[key] = inner;
  return copy as T;
}

function withStructuredText<T extends object>(result: T, structured: unknown): T {
  if (structured === undefined) return result;
  const text = JSON.stringify(structured);
  const content: unknown = (result as { content?: unknown }).content;
  const blocks = Array.isArray(content) ? content : [];
  if (blocks.some((block) => holdsJson(block, text))) return result;
  return { ...result, content: [...blocks, { type: 'text', text }] };
}

/** A text block whose JSON is the structured content's, however it was spaced. */
function holdsJson(block: unknown, json: string): boolean {
  if (!isJsonObject(block) || block['type'] !== 'text' || typeof block['text'] !== 'string') return false;
  if (block['text'] === json) return true;
  try {
    return JSON.stringify(JSON.parse(block['text'])) === json;
  } catch {
    return false;
  }
}
