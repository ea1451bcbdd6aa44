import fc from 'fast-check';
import type { EventEnvelope } from '@estate/events';
import { storableEntry } from '../store/storable-entry';
import { parseEnvelope, toAuditEntry } from './audit-entry.mapper';

const envelope = (type: string, data: Record<string, unknown>, extra: Partial<EventEnvelope> = {}): EventEnvelope => ({
  id: 'evt-1',
  type,
  version: 1,
  stream: 'payments.lookup',
  position: 0,
  occurredAt: '2025-01-02T03:04:05Z',
  actor: 'ci-bot',
  correlationId: 'c-1',
  data,
  ...extra,
});

describe('toAuditEntry for registry events', () => {
  it('reads tool and version from the spec of ToolVersionPublished and the actor as principal', () => {
    const published = envelope('ToolVersionPublished', { spec: { name: 'payments.lookup', version: '1.2.0' }, bump: 'minor', changes: [] });
    const entry = toAuditEntry('registry', 'estate.registry.events', published);
    expect(entry).toEqual({
      eventId: 'evt-1',
      topic: 'estate.registry.events',
      type: 'ToolVersionPublished',
      stream: 'payments.lookup',
      tool: 'payments.lookup',
      version: '1.2.0',
      principal: 'ci-bot',
      outcome: null,
      occurredAt: '2025-01-02T03:04:05.000Z',
      payload: published,
    });
  });

  it('reads name and version from the data of lifecycle events', () => {
    const deprecated = envelope('ToolVersionDeprecated', { name: 'payments.lookup', version: '1.0.0', reason: 'old' });
    expect(toAuditEntry('registry', 't', deprecated)).toMatchObject({ tool: 'payments.lookup', version: '1.0.0', outcome: null });
  });

  it('puts the server name of ServerRegistered in stream, with no tool or version', () => {
    const registered = envelope('ServerRegistered', { name: 'payments', url: 'http://x', owner: 'o' }, { stream: 'server:payments' });
    expect(toAuditEntry('registry', 't', registered)).toMatchObject({ stream: 'payments', tool: null, version: null, principal: 'ci-bot' });
  });

  it('records the envelope as received, not upcast', () => {
    const v1 = envelope('ServerRegistered', { name: 'crm', url: 'http://crm', owner: 'o' });
    expect(toAuditEntry('registry', 't', v1).payload).toBe(v1);
  });

  it('leaves tool and version null when an unknown event lacks them', () => {
    expect(toAuditEntry('registry', 't', envelope('SomethingNew', { name: 7 }))).toMatchObject({ tool: null, version: null });
  });
});

describe('toAuditEntry for call events', () => {
  it('takes principal, tool, version and outcome from a completed call', () => {
    const completed = envelope('ToolCallCompleted', {
      principal: 'agent-7', tool: 'payments.lookup', version: '1.2.0', outcome: 'tool_error', durationMs: 3, attempts: 1, repaired: 0,
    }, { actor: 'mcp-edge' });
    expect(toAuditEntry('calls', 'estate.calls', completed)).toMatchObject({
      principal: 'agent-7', tool: 'payments.lookup', version: '1.2.0', outcome: 'tool_error',
    });
  });

  it('records a refusal as refused:<reason>, with no version when none was resolved', () => {
    const refused = envelope('ToolCallRefused', { principal: 'agent-7', tool: 'payments.nope', reason: 'unknown_tool', detail: '' });
    expect(toAuditEntry('calls', 't', refused)).toMatchObject({ outcome: 'refused:unknown_tool', tool: 'payments.nope', version: null });
  });

  it('falls back to the actor when the call names no principal', () => {
    expect(toAuditEntry('calls', 't', envelope('ToolCallCompleted', { tool: 'x' })).principal).toBe('ci-bot');
  });
});

describe('parseEnvelope', () => {
  it('accepts a complete envelope', () => {
    const value = envelope('ToolCallCompleted', {});
    expect(parseEnvelope(JSON.stringify(value))).toEqual({ ok: true, envelope: value });
  });

  it('accepts U+0000 and lone surrogates: the payload keeps them, the columns hold escaped keys', () => {
    const raw = JSON.stringify(envelope('ToolCallRefused', { principal: 'p\u0000', tool: 'bank.x\ud800y', reason: 'unknown_tool', detail: '' }));
    const parsed = parseEnvelope(raw);
    if (!parsed.ok) throw new Error(parsed.reason);
    const entry = storableEntry(toAuditEntry('calls', 'estate.calls', parsed.envelope));
    expect(entry).toMatchObject({ tool: 'bank.x\\ud800y', principal: 'p\\u0000' });
    expect((entry.payload.data as { tool: string }).tool).toBe('bank.x\ud800y');
  });

  it('keeps a name with a surrogate pair (an emoji) and a plain name exactly as sent', () => {
    const entry = storableEntry(toAuditEntry('calls', 'estate.calls', envelope('ToolCallRefused', { principal: 'p\u{1F600}', tool: 'bank.x', reason: 'unknown_tool', detail: '' })));
    expect(entry).toMatchObject({ tool: 'bank.x', principal: 'p\u{1F600}' });
  });

  it('bounds a long name in its column with a digest, so two long names stay apart', () => {
    const long = (tail: string) => envelope('ToolCallRefused', { principal: 'p', tool: `${'x'.repeat(3200)}${tail}`, reason: 'unknown_tool', detail: '' });
    const [a, b] = [storableEntry(toAuditEntry('calls', 'c', long('a'))), storableEntry(toAuditEntry('calls', 'c', long('b')))];
    expect(a.tool).toMatch(/^x{256}…#[0-9a-f]{16}$/);
    expect(a.tool).not.toBe(b.tool);
  });

  it('keeps a literal backslash-u0000 text, which is not a NUL', () => {
    expect(parseEnvelope(JSON.stringify(envelope('T', { text: '\\u0000' }))).ok).toBe(true);
  });

  it.each([
    ['null value', null, 'not a JSON object'],
    ['not JSON', '{oops', 'not JSON'],
    ['an array', '[]', 'not a JSON object'],
    ['no id', JSON.stringify({ ...envelope('T', {}), id: '' }), 'missing or empty "id"'],
    ['no data', JSON.stringify({ ...envelope('T', {}), data: 'x' }), 'missing object "data"'],
    ['a bad date', JSON.stringify({ ...envelope('T', {}), occurredAt: 'yesterday' }), '"occurredAt" is not a date from year 1 to 9999'],
    ['year 0', JSON.stringify({ ...envelope('T', {}), occurredAt: '0000-01-01T00:00:00Z' }), '"occurredAt" is not a date from year 1 to 9999'],
    ['year 0, as toISOString writes it', JSON.stringify({ ...envelope('T', {}), occurredAt: '0000-12-31T23:59:59.999Z' }), '"occurredAt" is not a date from year 1 to 9999'],
    ['year 10000', JSON.stringify({ ...envelope('T', {}), occurredAt: '+010000-01-01T00:00:00Z' }), '"occurredAt" is not a date from year 1 to 9999'],
    ['a float version', JSON.stringify({ ...envelope('T', {}), version: 1.5 }), 'missing integer "version"'],
  ])('refuses %s', (_, raw, reason) => {
    expect(parseEnvelope(raw)).toEqual({ ok: false, reason });
  });
});

describe('the time of an entry', () => {
  // Texts in toISOString's own form skip Date.parse; the form and the calendar must still decide as Date does.
  const isoLike = fc.tuple(
    fc.integer({ min: 0, max: 9999 }), fc.integer({ min: 0, max: 13 }), fc.integer({ min: 0, max: 32 }),
    fc.integer({ min: 0, max: 24 }), fc.integer({ min: 0, max: 60 }), fc.integer({ min: 0, max: 60 }), fc.integer({ min: 0, max: 999 }),
  ).map(([y, mo, d, h, mi, s, ms]) => {
    const pad = (n: number, width: number) => String(n).padStart(width, '0');
    return `${pad(y, 4)}-${pad(mo, 2)}-${pad(d, 2)}T${pad(h, 2)}:${pad(mi, 2)}:${pad(s, 2)}.${pad(ms, 3)}Z`;
  });

  it('is accepted exactly when Date reads a moment from year 1 to 9999, and is then what toISOString writes', () => {
    fc.assert(fc.property(fc.oneof(isoLike, fc.date({ min: new Date(Date.UTC(1, 0, 1)), max: new Date(Date.UTC(9999, 11, 31)), noInvalidDate: true }).map((d) => d.toISOString())), (occurredAt) => {
      const parsed = parseEnvelope(JSON.stringify({ ...envelope('ToolCallCompleted', {}), occurredAt }));
      const time = Date.parse(occurredAt);
      const valid = !Number.isNaN(time) && time >= Date.parse('0001-01-01T00:00:00.000Z');
      expect(parsed.ok).toBe(valid);
      if (parsed.ok) expect(toAuditEntry('calls', 't', parsed.envelope).occurredAt).toBe(new Date(time).toISOString());
    }), { numRuns: 2000 });
  });
});
