import { readFile } from 'node:fs/promises';
import { issueDevToken } from '@estate/platform';
import { checkSummary } from './check.summary';
import { asOfSummary, historySummary } from './time-travel.summary';

export interface CliEnv {
  registryUrl: string;
  auditUrl: string;
  discoveryUrl: string;
  token?: string;
  secret?: string;
}

export interface CliOutcome {
  ok: boolean;
  output: string;
  /** When not ok: 1 (the answer was no: refused, differs), or 2 (the command could not be carried out: a usage error, no token, unreachable). */
  exitCode?: 1 | 2;
}

/** A command that cannot run as given (a missing argument or setting): exit code 2, never a refusal's 1. */
const cannotRun = (output: string): CliOutcome => ({ ok: false, output, exitCode: 2 });

/** Statuses that are an answer about the request itself (a refusal), not a failure to ask. */
const REFUSALS = new Set([400, 404, 409, 413, 415, 422]);

/** fetch, with a failure that names the URL and the cause ("connect ECONNREFUSED …"), not just "fetch failed". */
async function reach(url: string, init?: RequestInit): Promise<Response> {
  try {
    return await fetch(url, init);
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    throw new Error(`could not reach ${new URL(url).origin} (${cause?.message ?? cause?.code ?? String(error)}); is the estate running there? (ESTATE_REGISTRY_URL / ESTATE_AUDIT_URL / ESTATE_DISCOVERY_URL, or ESTATE_DATA_DIR of a running npm start)`, { cause: error });
  }
}

type Options = Record<string, string | boolean | undefined>;

/** `summarize` adds lines under the JSON answer (e.g. `check`'s policy verdicts). */
async function request(method: string, url: string, token: string | undefined, body?: unknown, summarize?: (answer: unknown) => string | undefined): Promise<CliOutcome> {
  if (!token) return cannotRun('set ESTATE_TOKEN (a bearer token; `estate token` mints a development one)');
  const response = await reach(url, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  let pretty = text;
  let summary: string | undefined;
  try {
    const answer: unknown = JSON.parse(text);
    pretty = JSON.stringify(answer, null, 2);
    summary = summarize?.(answer);
  } catch {
    // not JSON: print as is
  }
  const output = `${response.status} ${response.statusText}\n${pretty}${summary === undefined ? '' : `\n${summary}`}`;
  return response.ok ? { ok: true, output } : { ok: false, output, exitCode: REFUSALS.has(response.status) ? 1 : 2 };
}

async function readJson(file: string | undefined): Promise<unknown> {
  if (!file) throw new Error('a JSON file argument is required');
  return JSON.parse(await readFile(file, 'utf8'));
}

const str = (v: string | boolean | undefined): string | undefined => (typeof v === 'string' ? v : undefined);

/** Each command maps to one REST call (or, for `token`, to a local signature). */
export async function runCommand(command: string, args: string[], options: Options, env: CliEnv): Promise<CliOutcome> {
  switch (command) {
    case 'token': {
      const secret = env.secret;
      const sub = str(options.sub);
      if (!secret || !sub) return cannotRun('usage: estate token --sub <id> [--scope "a b"] [--tenant t] [--clearance c] (needs ESTATE_JWT_SECRET, or a running npm start in ESTATE_DATA_DIR)');
      const jwt = await issueDevToken(secret, { sub, scope: str(options.scope), tenant: str(options.tenant), clearance: str(options.clearance) ?? 'internal' }, { audience: str(options.audience) });
      return { ok: true, output: jwt };
    }
    case 'register-server':
      return request('POST', `${env.registryUrl}/v1/servers`, env.token, {
        name: str(options.name), namespace: str(options.namespace), url: str(options.url), transport: str(options.transport) ?? (options.command ? 'stdio' : 'streamable-http'),
        command: str(options.command), args: args.length > 0 ? args : undefined, owner: str(options.owner),
      });
    case 'publish':
      return request('POST', `${env.registryUrl}/v1/tools`, env.token, await readJson(args[0]));
    case 'check':
      return request('POST', `${env.registryUrl}/v1/tools/check`, env.token, await readJson(args[0]), checkSummary);
    case 'deprecate':
    case 'retire':
      if (args.length < 2 || !str(options.reason)) return cannotRun(`usage: estate ${command} <tool> <version> --reason "…"${command === 'deprecate' ? ' [--sunset-at ISO] [--replacement v]' : ''}`);
      return request('POST', `${env.registryUrl}/v1/tools/${encodeURIComponent(args[0])}/versions/${encodeURIComponent(args[1])}/${command}`, env.token, {
        reason: str(options.reason), sunsetAt: str(options['sunset-at']), replacement: str(options.replacement),
      });
    case 'tools':
      return request('GET', `${env.registryUrl}/v1/tools${args[0] ? `/${encodeURIComponent(args[0])}` : ''}`, env.token);
    case 'audit': {
      const query = new URLSearchParams();
      for (const [key, value] of Object.entries(options)) if (typeof value === 'string') query.set(key, value);
      return request('GET', `${env.auditUrl}/v1/audit?${query}`, env.token);
    }
    case 'callers':
      if (!args[0]) return cannotRun('usage: estate callers <tool> [--version v]');
      return request('GET', `${env.auditUrl}/v1/tools/${encodeURIComponent(args[0])}/callers${str(options.version) ? `?version=${encodeURIComponent(str(options.version) as string)}` : ''}`, env.token);
    case 'as-of': {
      if (!args[0]) return cannotRun('usage: estate as-of <ISO time> [--principal p [--scope "a b"] [--tenant t] [--clearance c]]');
      const query = new URLSearchParams({ at: args[0] });
      for (const key of ['principal', 'scope', 'tenant', 'clearance']) if (str(options[key])) query.set(key, str(options[key]) as string);
      return request('GET', `${env.discoveryUrl}/v1/discover?${query}`, env.token, undefined, asOfSummary);
    }
    case 'history':
      if (!args[0]) return cannotRun('usage: estate history <tool>');
      return request('GET', `${env.registryUrl}/v1/tools/${encodeURIComponent(args[0])}/history`, env.token, undefined, historySummary);
    case 'rebuild':
      return request('POST', `${env.discoveryUrl}/v1/rebuild`, env.token);
    case 'verify':
      return verify(env);
    default:
      return cannotRun(`unknown command '${command}'\n\n${USAGE}`);
  }
}

export const USAGE = `estate <command>

  token --sub <id> [--scope "a b"] [--tenant t] [--clearance c]   mint a development token (ESTATE_JWT_SECRET)
  register-server --name n (--url u | --command c [args…]) --owner o [--namespace ""]
  publish <spec.json>        publish a tool version (201, or 409/422 with the reasons)
  check <spec.json>          the same decision as a dry run; exit code 1 when refused, 2 when it could not be
                             checked (unreachable, no rights, unreadable file): a CI gate can tell them apart; ends with
                             the ESTATE_COMPAT policy in force and what the strict policy says of each change
  deprecate <tool> <version> --reason r [--sunset-at ISO] [--replacement v]
  retire <tool> <version> --reason r
  tools [name]               list the published tools you may see, or one tool's versions
  audit [--tool t] [--version v] [--principal p] [--type T] [--limit n]
  callers <tool> [--version v]   who still calls a version
  as-of <ISO time> [--principal p [--scope "a b"] [--tenant t] [--clearance c]]
                             the tools and versions a principal could see and call at that time (an admin may
                             name any principal and its rights; anyone else gets its own)
  history <tool>             every change of a tool: when, what, which version, who
  rebuild                    rebuild discovery's catalog (from the log, or the event store when the log is incomplete)
  verify                     check the audit chain, compare the catalog with a fresh fold of the event store and the
                             catalog topic (what a new edge copy reads) with the catalog; exit code 1 on any
                             difference, 2 when a check could not be made
  stdio                      serve the MCP edge over stdio (ESTATE_STDIO_TOKEN; KAFKA_BROKERS, or joins the npm start in ESTATE_DATA_DIR)

  help, --help, -h           this text (also after any command: estate check --help)

Environment: ESTATE_REGISTRY_URL (http://127.0.0.1:8001), ESTATE_AUDIT_URL (http://127.0.0.1:8003),
ESTATE_DISCOVERY_URL (http://127.0.0.1:8002), ESTATE_TOKEN.

Exit codes: 0 done (and help); 1 the answer was no (check refused, verify found a difference, a request
refused); 2 the command could not be carried out (a usage error, no or an unusable token, unreachable).`;

/** Every check always runs, so one report names every problem. */
async function verify(env: CliEnv): Promise<CliOutcome> {
  if (!env.token) return cannotRun('set ESTATE_TOKEN (an estate:admin bearer token)');
  const chain = await getJson(`${env.auditUrl}/v1/audit/verify`, env.token);
  const catalog = await getJson(`${env.discoveryUrl}/v1/verify`, env.token);
  const chainOk = chain.status === 200 && (chain.body as { ok?: unknown }).ok === true;
  const chainIntact = chain.status === 200 && (chain.body as { chainOk?: unknown }).chainOk === true;
  const catalogOk = catalog.status === 200 && (catalog.body as { equal?: unknown }).equal === true;
  const differences = ((catalog.body as { differences?: unknown }).differences ?? []) as string[];
  const topic = catalog.status === 200 ? (catalog.body as { catalogTopic?: CatalogTopicAnswer }).catalogTopic : undefined;
  const lines = [
    chainOk
      ? `audit chain: intact (${(chain.body as { entries?: number }).entries} entries)`
      : chain.status !== 200
        // Not a verdict on the chain: the check itself was refused or failed.
        ? `audit chain: could not be checked (${chain.status}) ${JSON.stringify(chain.body)}`
        : chainIntact
          ? `audit chain: intact, but the trail is not complete yet ${JSON.stringify(chain.body)}`
          : `audit chain: NOT intact ${JSON.stringify(chain.body)}`,
    catalogOk
      ? `catalog: equal to a fresh fold of the event store (${(catalog.body as { events?: number }).events} events)`
      : catalog.status === 200
        ? `catalog: DIFFERS from a fresh fold of the event store:\n${differences.map((d) => `  - ${d}`).join('\n')}`
        : `catalog: could not be compared (${catalog.status}) ${JSON.stringify(catalog.body)}`,
    ...(catalog.status === 200 ? [catalogTopicLine(topic)] : []),
  ];
  const topicOk = topic?.equal === true;
  const unchecked = chain.status !== 200 || catalog.status !== 200 || topic?.reachable !== true;
  return chainOk && catalogOk && topicOk ? { ok: true, output: lines.join('\n') } : { ok: false, output: lines.join('\n'), exitCode: unchecked ? 2 : 1 };
}

/** Discovery's verdict on the catalog topic (what a new edge copy reads). */
interface CatalogTopicAnswer {
  topic: string;
  reachable: boolean;
  equal: boolean;
  records: number;
  differences: string[];
}

function catalogTopicLine(topic: CatalogTopicAnswer | undefined): string {
  if (topic === undefined) return 'catalog topic: not checked (this discovery does not report it)';
  if (!topic.reachable) return `catalog topic: could not be read (${topic.topic}: the broker did not answer)`;
  if (topic.equal) return `catalog topic: holds the catalog (${topic.records} records read from ${topic.topic})`;
  return `catalog topic: DIFFERS from the catalog (what a new edge copy would serve, read from ${topic.topic}):\n${topic.differences.map((d) => `  - ${d}`).join('\n')}`;
}

async function getJson(url: string, token: string): Promise<{ status: number; body: unknown }> {
  const response = await reach(url, { headers: { authorization: `Bearer ${token}` } });
  const text = await response.text();
  try {
    return { status: response.status, body: JSON.parse(text) as unknown };
  } catch {
    return { status: response.status, body: text };
  }
}
