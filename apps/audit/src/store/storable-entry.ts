import { boundText } from '@estate/platform';
import type { AuditEntryContent } from '../domain/audit-entry.mapper';

/**
 * Longest value kept in a searchable column. The payload keeps every value exactly (as JSON
 * text); the columns hold a storable, bounded search key, so no value can break an index or the
 * insert.
 */
export const MAX_KEY_LENGTH = 256;

/** The column form of a value: U+0000 and lone surrogates escaped, cut at MAX_KEY_LENGTH with a digest. */
export function searchKey(value: string): string {
  // Nearly every key is short and holds neither U+0000 nor a surrogate: one plain class test, not boundText's escaping pass.
  if (value.length <= MAX_KEY_LENGTH && !MAYBE_UNSTORABLE.test(value)) return value;
  return boundText(value, MAX_KEY_LENGTH).text;
}

/** What boundText may have to escape (any surrogate, paired or not, takes the careful path). */
const MAYBE_UNSTORABLE = /[\u0000\ud800-\udfff]/;

const optionalKey = (value: string | null): string | null => (value === null ? null : searchKey(value));

/** The entry as the trail stores, hashes and searches it. */
export function storableEntry(content: AuditEntryContent): AuditEntryContent {
  return {
    eventId: searchKey(content.eventId),
    topic: searchKey(content.topic),
    type: searchKey(content.type),
    stream: searchKey(content.stream),
    tool: optionalKey(content.tool),
    version: optionalKey(content.version),
    principal: searchKey(content.principal),
    outcome: optionalKey(content.outcome),
    occurredAt: content.occurredAt,
    payload: content.payload,
  };
}
