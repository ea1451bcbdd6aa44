import { createHash, randomBytes } from 'node:crypto';
import { stableStringify } from '@estate/contracts';

interface Pending {
  /** The principal's key (rate-limit.policy.ts principalKey) the token was issued to. */
  owner: string;
  binding: string;
  expiresAt: number;
}

export type Redemption = { ok: true } | { ok: false; reason: 'unknown' | 'expired' | 'mismatch' };

/** The hash a confirmation is bound to: who, which tool, which arguments (key order ignored). */
export function confirmationBinding(principal: string, tool: string, args: unknown): string {
  return createHash('sha256').update(stableStringify([principal, tool, args])).digest('hex');
}

/**
 * Single-use confirmation tokens for destructive calls. A token confirms exactly one call: the
 * same principal, tool and arguments it was issued for, before it expires. Redeeming spends it,
 * whatever the outcome, so a leaked token cannot be tried against other arguments. Presented by
 * another principal it is unknown and stays unspent: no one can learn that someone else's token
 * is real, nor burn it.
 */
export class ConfirmationTokens {
  private readonly pending = new Map<string, Pending>();

  constructor(private readonly ttlMs: number, private readonly random: () => string = () => randomBytes(18).toString('base64url')) {}

  issue(owner: string, binding: string, now: number): { token: string; expiresAt: number } {
    this.sweep(now);
    const token = `cfm_${this.random()}`;
    const expiresAt = now + this.ttlMs;
    this.pending.set(token, { owner, binding, expiresAt });
    return { token, expiresAt };
  }

  redeem(token: string, owner: string, binding: string, now: number): Redemption {
    const found = this.pending.get(token);
    if (!found || found.owner !== owner) return { ok: false, reason: 'unknown' };
    this.pending.delete(token);
    if (found.expiresAt <= now) return { ok: false, reason: 'expired' };
    if (found.binding !== binding) return { ok: false, reason: 'mismatch' };
    return { ok: true };
  }

  private sweep(now: number): void {
    for (const [token, entry] of this.pending) if (entry.expiresAt <= now) this.pending.delete(token);
  }
}
