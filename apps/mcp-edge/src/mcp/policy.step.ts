import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Principal } from '@estate/contracts';
import type { CatalogVersion } from '@estate/events';
import type { CallPolicy } from '../policy/call.policy';
import { principalKey } from '../policy/rate-limit.policy';
import type { CallerContext } from './caller.context';
import { confirmationResult, declinedResult, rateLimitedResult, tooLargeResult, unshowableArgumentsResult } from './call-results';
import type { CallRecords } from './call.records';
import { confirmationQuestion, MAX_SHOWN_ARGUMENTS } from './confirmation.question';
import type { CallContext } from './tool-call.pipeline';

const CONFIRM_META = 'io.estate/confirm';

/** Runs the call policy and turns a refusal into the result the model sees (and the record audit keeps). */
export class PolicyStep {
  constructor(private readonly policy: CallPolicy, private readonly records: CallRecords, private readonly clock: () => number) {}

  /**
   * Meters a call before anything about its tool is looked up. undefined: go on. Otherwise the
   * refusal, the same for every name (it must not tell a tool that exists from one that does not).
   */
  admit(session: CallerContext, principal: Principal, name: string): CallToolResult | undefined {
    const verdict = this.policy.admit(principalKey(principal), this.clock());
    if (verdict.ok) return undefined;
    this.records.refuse(session, name, undefined, 'rate_limited', `principal limit; retry after ${verdict.retryAfterMs} ms`);
    return rateLimitedResult(name, 'principal', verdict.retryAfterMs);
  }

  /** undefined: go on to the upstream. Otherwise the refusal to return. */
  async apply(session: CallerContext, principal: Principal, version: CatalogVersion, args: Record<string, unknown>, meta: Record<string, unknown> | undefined, context: CallContext): Promise<CallToolResult | undefined> {
    const { spec } = version;
    const facts = { principal: principalKey(principal), tool: spec.name, sideEffect: spec.sideEffect, args, confirmToken: meta?.[CONFIRM_META] };
    const verdict = this.policy.decide(facts, this.clock());
    switch (verdict.kind) {
      case 'allow':
        return undefined;
      case 'too_large':
        this.records.refuse(session, spec.name, version.version, 'too_large', `arguments are ${verdict.bytes} bytes (limit ${verdict.limit})`);
        return tooLargeResult('arguments', spec.name, verdict.bytes, verdict.limit);
      case 'rate_limited':
        this.records.refuse(session, spec.name, version.version, 'rate_limited', `${verdict.limit} limit; retry after ${verdict.retryAfterMs} ms`);
        return rateLimitedResult(spec.name, verdict.limit, verdict.retryAfterMs);
      case 'confirm':
        return this.confirm(session, version, args, { owner: facts.principal, binding: verdict.binding }, verdict.rejected, context);
    }
  }

  /** A client that can be asked is asked; any other gets a single-use token and how to use it. */
  private async confirm(
    session: CallerContext, version: CatalogVersion, args: Record<string, unknown>, { owner, binding }: { owner: string; binding: string },
    rejected: string | undefined, context: CallContext,
  ): Promise<CallToolResult | undefined> {
    const name = version.spec.name;
    if (!rejected && session.confirmer.canAsk()) {
      const question = confirmationQuestion(version.spec, args);
      // Never the token instead: a caller that can ask a person must not skip them by padding its arguments.
      if (!question.ok) {
        this.records.refuse(session, name, version.version, 'confirmation_required', `arguments too long to show (${question.shortestLength} characters at the shortest; limit ${MAX_SHOWN_ARGUMENTS})`);
        return unshowableArgumentsResult(name, question.shortestLength, MAX_SHOWN_ARGUMENTS);
      }
      const action = await session.confirmer.ask({ tool: name, message: question.message, binding }, context);
      if (action === 'accept') return undefined;
      if (action !== 'failed') {
        this.records.refuse(session, name, version.version, 'confirmation_required', `the user answered ${action}`);
        return declinedResult(name, action);
      }
    }
    const issued = this.policy.confirmations.issue(owner, binding, this.clock());
    this.records.refuse(session, name, version.version, 'confirmation_required', rejected ? `confirmation token ${rejected}` : 'confirmation token issued');
    return confirmationResult(name, issued.token, issued.expiresAt, rejected);
  }
}
