import { isRecord, ownMember } from '../json-path.util';
import type { Caveat, Effect } from './classifier.types';
import { childSite, compareAside, effectOfChanges, fillingSite, report } from './change-report';
import { defaultRule, newDefaultSatisfies } from './default-rules';
import {
  combineEffects,
  isOpenSchema,
  matchesPattern,
  propertiesOf,
  requiredOf,
  undeclaredPropertySchema,
  unlistedPropertyName,
} from './schema-node.util';
import type { NodePair, Site } from './schema-walk.types';

/** Rules for properties, required, additionalProperties and patternProperties. */

export function objectRules(pair: NodePair): void {
  const oldProps = propertiesOf(pair.o);
  const newProps = propertiesOf(pair.n);
  const oldRequired = requiredOf(pair.o);
  const newRequired = requiredOf(pair.n);
  const names = new Set([...Object.keys(oldProps), ...Object.keys(newProps), ...oldRequired, ...newRequired]);
  for (const name of [...names].sort()) {
    const before = Object.hasOwn(oldProps, name);
    const after = Object.hasOwn(newProps, name);
    if (before && after) pair.ctx.compare(oldProps[name], newProps[name], propertySite(pair, name), pair.ctx);
    else if (after) propertyAdded(pair, name);
    else if (before) propertyRemoved(pair, name);
    else requiredOnlyRule(pair, name);
    if (before && after) {
      requiredOnlyRule(pair, name);
      defaultRule(pair, name);
    }
  }
  additionalPropertiesRule(pair);
  patternPropertiesRule(pair);
}

/** A computed key defines an own member, so `__proto__` stays data (assigning it would set the prototype). */
function setProperty(parent: unknown, name: string, value: unknown): unknown {
  const base = isRecord(parent) ? { ...parent } : {};
  if (value !== undefined) return { ...base, [name]: value };
  delete base[name];
  return base;
}

/** The parent judges a property's default (default-rules.ts), since it decides whether the edge fills it. */
function propertySite(pair: NodePair, name: string): Site {
  return fillingSite(pair, childSite(pair, ['properties', name], (parent, value) => setProperty(parent, name, value)), true);
}

/** A name required (or no longer required) on both sides of an unchanged declaration. */
function requiredOnlyRule(pair: NodePair, name: string): void {
  const before = requiredOf(pair.o).has(name);
  const after = requiredOf(pair.n).has(name);
  if (before === after) return;
  if (after && newDefaultSatisfies(pair, name)) {
    report(pair, ['required'], 'made-required', 'compatible', `${name} is now required, and the edge fills its default in for calls that omit it`);
  } else if (after) report(pair, ['required'], 'made-required', 'narrower', `${name} is now required: values without it are rejected`);
  else report(pair, ['required'], 'made-optional', 'wider', `${name} is no longer required`);
}

function propertyAdded(pair: NodePair, name: string): void {
  const wasRequired = requiredOf(pair.o).has(name);
  const nowRequired = requiredOf(pair.n).has(name);
  const fallback = undeclaredPropertySchema(pair.o, name);
  const aside = compareAside(fallback, ownMember(propertiesOf(pair.n), name), propertySite(pair, name), pair.ctx);
  // What declaring it does to the values accepted under this name, the convention aside.
  const literal = effectOfChanges(aside);
  const narrowsWithin = aside.some((change) => change.caveat?.kind === 'narrows');
  const narrows = literal === 'narrower' || literal === 'both' || narrowsWithin;
  const effects: Effect[] = [];
  let why = '';
  const conventional = isOpenSchema(fallback) && !wasRequired;
  if (conventional) {
    // Callers had no reason to send a name the contract never mentioned, so the who-breaks list
    // calls declaring it an addition; the strict policy reads the rule to the letter instead.
    if (narrows) pair.ctx.policyApplied.value = true;
    effects.push(narrows && pair.ctx.policy === 'strict' ? combineEffects([literal, 'narrower']) : 'compatible');
    why = narrows ? '; the schema was open, so values the new declaration rejects were accepted under this name before' : '';
  } else {
    effects.push(literal);
    why = fallback === false ? '; additionalProperties was false, so it was rejected before' : '';
  }
  // The edge fills a valid default in for calls that omit the property, so they still pass.
  const filled = nowRequired && !wasRequired && newDefaultSatisfies(pair, name);
  if (nowRequired && !wasRequired && !filled) effects.push('narrower');
  const kind = nowRequired && !wasRequired ? 'property-added-required' : 'property-added-optional';
  const text = kind === 'property-added-optional'
    ? 'optional property added'
    : filled ? 'required property added with a default the edge fills in: values without it are still accepted' : 'required property added: values without it are rejected';
  // Aside changes are folded into this one, so a narrowing found inside them is flagged here.
  const flagged = conventional ? narrows : narrowsWithin;
  const caveat: Caveat | undefined = flagged && kind === 'property-added-optional' ? { kind: 'narrows' } : undefined;
  report(pair, ['properties', name], kind, combineEffects(effects), `${name}: ${text}${why}`, caveat);
}

/**
 * A removed property is never compatible for callers: where undeclared properties are refused a
 * call that sends it now fails, and where they are accepted it passes and the value is ignored
 * without a word. Both count as a narrowing of what the tool honours.
 */
function propertyRemoved(pair: NodePair, name: string): void {
  const wasRequired = requiredOf(pair.o).has(name);
  const nowRequired = requiredOf(pair.n).has(name);
  const fallback = undeclaredPropertySchema(pair.n, name);
  const site = propertySite(pair, name);
  const effects: Effect[] = [effectOfChanges(compareAside(ownMember(propertiesOf(pair.o), name), fallback, site, pair.ctx)), 'narrower'];
  if (wasRequired && !nowRequired) effects.push('wider');
  const why =
    fallback === false
      ? 'additionalProperties is false, so values that carry it are now rejected'
      : isOpenSchema(fallback)
        ? 'additionalProperties is open, so callers that still send it pass validation and its effect is silently lost'
        : 'it now falls under additionalProperties/patternProperties, which no longer say what it does';
  const lead = wasRequired && !nowRequired ? 'required property removed' : 'property removed';
  const caveat: Caveat | undefined = fallback === false ? undefined : { kind: 'ignored', property: name };
  report(pair, ['properties', name], 'property-removed', combineEffects(effects), `${name}: ${lead}; ${why}`, caveat);
}

function additionalPropertiesRule(pair: NodePair): void {
  const before = pair.o.additionalProperties;
  const after = pair.n.additionalProperties;
  if (isOpenSchema(before) && isOpenSchema(after)) return;
  const beforeSchema = isRecord(before) && !isOpenSchema(before);
  const afterSchema = isRecord(after) && !isOpenSchema(after);
  if (beforeSchema && afterSchema) {
    const name = unlistedPropertyName([pair.o, pair.n]);
    const site = fillingSite(pair, childSite(pair, ['additionalProperties'], (parent, value) => setProperty(parent, name, value)));
    pair.ctx.compare(before, after, site, pair.ctx);
    return;
  }
  if (before === after) return;
  const closing = after === false || (isOpenSchema(before) && afterSchema);
  if (closing) {
    const how = after === false ? 'false' : 'a schema';
    report(pair, ['additionalProperties'], 'additional-properties-closed', 'narrower', `additionalProperties closed (now ${how}): undeclared properties are rejected`);
  } else {
    report(pair, ['additionalProperties'], 'additional-properties-opened', 'wider', 'additionalProperties opened: more undeclared properties are accepted');
  }
}

/** additionalProperties is false on both sides and no declared property name matches `pattern`. */
function closedAround(pair: NodePair, pattern: string): boolean {
  if (pair.o.additionalProperties !== false || pair.n.additionalProperties !== false) return false;
  const names = [...Object.keys(propertiesOf(pair.o)), ...Object.keys(propertiesOf(pair.n))];
  const otherPatterns = [pair.o.patternProperties, pair.n.patternProperties].flatMap((map) => (isRecord(map) ? Object.keys(map) : []));
  // Another pattern could cover the same names with other rules: then the effect is not provable here.
  return otherPatterns.every((other) => other === pattern) && names.every((name) => matchesPattern(pattern, name) === false);
}

function patternPropertiesRule(pair: NodePair): void {
  const before = isRecord(pair.o.patternProperties) ? pair.o.patternProperties : {};
  const after = isRecord(pair.n.patternProperties) ? pair.n.patternProperties : {};
  const patterns = new Set([...Object.keys(before), ...Object.keys(after)]);
  for (const pattern of [...patterns].sort()) {
    if (Object.hasOwn(before, pattern) && Object.hasOwn(after, pattern)) {
      const site = childSite(pair, ['patternProperties', pattern], (parent) => parent);
      pair.ctx.compare(before[pattern], after[pattern], site, pair.ctx);
    } else if (closedAround(pair, pattern)) {
      // Names matching it were all refused (additionalProperties false, no declared name matches it).
      const added = Object.hasOwn(after, pattern);
      const text = `patternProperties ${JSON.stringify(pattern)} ${added ? 'added: names matching it were refused before' : 'removed: names matching it are refused now'} (additionalProperties is false)`;
      report(pair, ['patternProperties', pattern], 'pattern-properties-changed', added ? 'wider' : 'narrower', text);
    } else {
      const verb = Object.hasOwn(after, pattern) ? 'added' : 'removed';
      const text = `patternProperties ${JSON.stringify(pattern)} ${verb}: its effect depends on additionalProperties and cannot be proven safe`;
      report(pair, ['patternProperties', pattern], 'pattern-properties-changed', 'both', text);
    }
  }
}
