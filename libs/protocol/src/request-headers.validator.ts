import { decodeHeaderValue } from './header-value.decoder';
import { isJsonObject } from './json-rpc-id.guard';
import type { JsonRpcErrorObject } from './json-rpc.types';
import { headerMismatchError, invalidParamsAt } from './revision-error.table';
import { describeJsonType, quoteForMessage } from './json-value.describer';

/** Incoming HTTP headers as Node hands them over; names are looked up case-insensitively. */
export type HttpHeaders = Readonly<Record<string, string | readonly string[] | undefined>>;

export const MCP_HEADER = {
  protocolVersion: 'MCP-Protocol-Version',
  method: 'Mcp-Method',
  name: 'Mcp-Name',
  sessionId: 'Mcp-Session-Id',
} as const;

/** Methods whose target is mirrored into `Mcp-Name`, and the body member it comes from. */
export const NAMED_METHODS: Readonly<Record<string, 'name' | 'uri'>> = {
  'tools/call': 'name',
  'prompts/get': 'name',
  'resources/read': 'uri',
};

export type HeaderLookup = { readonly present: false } | { readonly present: true; readonly value: string } | { readonly present: true; readonly repeated: true };

/** One header by name, any case. Sent twice it is malformed: which copy would a router have used? */
export function readHeader(headers: HttpHeaders, name: string): HeaderLookup {
  const wanted = name.toLowerCase();
  // A loop without intermediate arrays: every session POST asks for the version header (issue 10).
  let count = 0;
  let only = '';
  for (const key in headers) {
    const value = headers[key];
    if (value === undefined || key.length !== wanted.length || key.toLowerCase() !== wanted) continue;
    if (typeof value === 'string') {
      count += 1;
      only = value;
    } else {
      count += value.length;
      if (value.length > 0) only = value[0] as string;
    }
  }
  if (count === 0) return ABSENT;
  return count === 1 ? { present: true, value: only } : REPEATED;
}

const ABSENT: HeaderLookup = Object.freeze({ present: false });
const REPEATED: HeaderLookup = Object.freeze({ present: true, repeated: true });

/**
 * Checks the headers a stateless POST must mirror from its body: the protocol version, the method
 * and, for the three named methods, the target. Proxies route on headers while we act on the
 * body, so any disagreement is refused with -32020 (HTTP 400) rather than resolved either way.
 * `bodyVersion` is the version from `_meta`, already parsed. null means the headers agree.
 */
export function checkRequestHeaders(headers: HttpHeaders, method: string, params: unknown, bodyVersion: string): JsonRpcErrorObject | null {
  const version = required(headers, MCP_HEADER.protocolVersion);
  if (typeof version !== 'string') return version;
  if (version !== bodyVersion) return mismatch(MCP_HEADER.protocolVersion, version, bodyVersion);
  const mcpMethod = required(headers, MCP_HEADER.method);
  if (typeof mcpMethod !== 'string') return mcpMethod;
  if (mcpMethod !== method) return mismatch(MCP_HEADER.method, mcpMethod, method);
  const source = NAMED_METHODS[method];
  if (source === undefined) return null;
  const target = isJsonObject(params) ? params[source] : undefined;
  if (typeof target !== 'string') return invalidParamsAt(`params.${source}`, `must be a string, got ${describeJsonType(target)}`);
  const name = required(headers, MCP_HEADER.name);
  if (typeof name !== 'string') return name;
  const decoded = decodeHeaderValue(name);
  if (!decoded.ok) return headerMismatchError(`${MCP_HEADER.name} header ${decoded.reason}`);
  return decoded.value === target ? null : mismatch(MCP_HEADER.name, decoded.value, target);
}

/** The header's single value, checked for characters HTTP does not allow; or the -32020 to send. */
function required(headers: HttpHeaders, name: string): string | JsonRpcErrorObject {
  const found = readHeader(headers, name);
  if (!found.present) return headerMismatchError(`required header ${name} is missing`);
  if (!('value' in found)) return headerMismatchError(`${name} header is sent more than once`);
  if (name !== MCP_HEADER.name && !/^[\x21-\x7E]+$/.test(found.value)) return headerMismatchError(`${name} header is empty or contains invalid characters`);
  return found.value;
}

function mismatch(header: string, headerValue: string, bodyValue: string): JsonRpcErrorObject {
  return headerMismatchError(`${header} header value ${quoteForMessage(headerValue)} does not match body value ${quoteForMessage(bodyValue)}`);
}
