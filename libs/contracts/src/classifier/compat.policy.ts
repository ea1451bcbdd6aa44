/**
 * How literally the registry reads the who-breaks rule ("does the new contract accept every value
 * the old one accepted?"). The two policies differ on one case only: declaring an optional
 * property where the schema was open. Before, any value was accepted under that name; after, only
 * the declared ones are.
 *
 * - `standard` (the default) follows the usual list of changes: callers had no reason to send a
 *   name the contract never mentioned, so the declaration is a minor addition. The change report
 *   still marks it `narrows` with a value the new contract rejects.
 * - `strict` applies the rule to the letter: that change is major, like any other narrowing.
 *
 * The registry reads the policy from its configuration (`ESTATE_COMPAT`) and passes it in.
 */
export const COMPAT_POLICIES = ['standard', 'strict'] as const;
export type CompatPolicy = (typeof COMPAT_POLICIES)[number];
export const DEFAULT_COMPAT_POLICY: CompatPolicy = 'standard';
