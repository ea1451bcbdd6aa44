import type { Principal } from '@estate/contracts';
import type { ServerCapabilities } from '@estate/protocol';

/** One 2026-07-28 method served beside tools: the request's params and who sent it in, a result body out (or a WireError thrown). */
export type PrimitiveMethod = (params: Readonly<Record<string, unknown>>, principal: Principal, signal?: AbortSignal) => Promise<Record<string, unknown>>;

/**
 * What the stateless dispatcher needs of the resource, prompt and completion proxies: the methods
 * by name and the capabilities they add to server/discover. Without it, the dispatcher serves tools alone.
 */
export interface PrimitiveMethods {
  readonly capabilities: ServerCapabilities;
  readonly methods: ReadonlyMap<string, PrimitiveMethod>;
}
