import { CompleteRequestParamsSchema, GetPromptRequestParamsSchema, ReadResourceRequestParamsSchema } from '@modelcontextprotocol/sdk/types.js';
import type { z } from 'zod/v4';
import type { ServerCapabilities } from '@estate/protocol';
import { WireError } from '../mcp/wire-error';
import type { PrimitiveMethod, PrimitiveMethods } from '../mcp/primitive-methods.port';
import type { PromptProxy } from './prompt.proxy';
import { requestCaller } from './proxy.caller';
import type { ResourceProxy } from './resource.proxy';

/**
 * What the edge offers 2026-07-28 clients beside tools. Resource and prompt lists change for a
 * principal when its reachable servers change or an upstream says so, and both reach a
 * subscriptions/listen stream (primitive-listen.streams.ts), as do updates of watched URIs.
 * Logging is left out: the revision deprecates it and the edge relays no upstream log messages
 * to a request without a session.
 */
export const STATELESS_PRIMITIVE_CAPABILITIES: ServerCapabilities = {
  resources: { subscribe: true, listChanged: true },
  prompts: { listChanged: true },
  completions: {},
};

/** The same answer as a session gets for a cursor: lists come back whole, so any cursor is one we never issued. */
function refuseCursor(params: Readonly<Record<string, unknown>>): void {
  if (params['cursor'] !== undefined) throw new WireError(-32602, 'Invalid params: the cursor is not one this server issued');
}

/** `params` checked against the schema of the method, or -32602 naming the first offending path. */
function parsed<S extends z.ZodType>(schema: S, params: Readonly<Record<string, unknown>>): z.infer<S> {
  const result = schema.safeParse(params);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const path = (issue?.path ?? []).reduce<string>((at, key) => {
    if (typeof key === 'number') return `${at}[${key}]`;
    const name = String(key);
    return /^[A-Za-z_$][\w$]*$/.test(name) ? `${at}.${name}` : `${at}[${JSON.stringify(name)}]`;
  }, 'params');
  throw new WireError(-32602, `Invalid params: ${path}: ${issue?.message ?? 'invalid'}`);
}

/**
 * resources/*, prompts/* and completion/complete for requests without a session: each request
 * is its own caller (requestCaller), so the authorization, attribution, prompt-text rules and
 * error answers are the session proxies' own. The request's `_meta` (its version, capabilities)
 * stays here; the upstream gets only what it is asked.
 */
export function statelessPrimitiveMethods(resources: ResourceProxy, prompts: PromptProxy): PrimitiveMethods {
  const methods = new Map<string, PrimitiveMethod>([
    ['resources/list', async (params, principal, signal) => {
      refuseCursor(params);
      return { ...(await resources.list(requestCaller(principal, signal))) };
    }],
    ['resources/templates/list', async (params, principal, signal) => {
      refuseCursor(params);
      return { ...(await resources.templates(requestCaller(principal, signal))) };
    }],
    ['resources/read', async (params, principal, signal) => {
      const { uri } = parsed(ReadResourceRequestParamsSchema, params);
      return { ...(await resources.read(requestCaller(principal, signal), uri)) };
    }],
    ['prompts/list', async (params, principal, signal) => {
      refuseCursor(params);
      return { ...(await prompts.list(requestCaller(principal, signal))) };
    }],
    ['prompts/get', async (params, principal, signal) => {
      const { name, arguments: args } = parsed(GetPromptRequestParamsSchema, params);
      return { ...(await prompts.get(requestCaller(principal, signal), { name, ...(args ? { arguments: args } : {}) })) };
    }],
    ['completion/complete', async (params, principal, signal) => {
      const { ref, argument, context } = parsed(CompleteRequestParamsSchema, params);
      const caller = requestCaller(principal, signal);
      // A template's URI is attributed by the caller's own lists, as a session's is after it listed them.
      if (ref.type === 'ref/resource') await resources.templates(caller);
      return { ...(await prompts.complete(caller, { ref, argument, ...(context ? { context } : {}) })) };
    }],
  ]);
  return { capabilities: STATELESS_PRIMITIVE_CAPABILITIES, methods };
}
