import { readDriftReport } from './drift-report';

const envelope = (extra: Record<string, unknown> = {}, data: Record<string, unknown> = {}) => JSON.stringify({
  id: 'e-1', type: 'ToolVersionDriftDetected', version: 1, stream: 'tool:bank.lookup', position: 0, occurredAt: '2026-11-30T10:00:00.000Z',
  actor: 'estate-edge', correlationId: 'c-9',
  data: { name: 'bank.lookup', version: '1.0.0', server: 'bank', upstreamTool: 'lookup', fields: ['description'], reason: 'upstream drift: lookup changed description', ...data },
  ...extra,
});

describe('drift report', () => {
  it('asks to quarantine the reported version, as the reporting edge, with its reason', () => {
    expect(readDriftReport(envelope())).toEqual({
      ok: true,
      command: { type: 'QuarantineToolVersion', name: 'bank.lookup', version: '1.0.0', reason: 'upstream drift: lookup changed description' },
      meta: { actor: 'estate-edge', correlationId: 'c-9' },
    });
  });

  it('says what is wrong with a message that is not a drift report', () => {
    expect(readDriftReport('{')).toEqual({ ok: false, problem: 'the message is not JSON' });
    expect(readDriftReport(null)).toMatchObject({ ok: false, problem: expect.stringContaining('not an event envelope') });
    expect(readDriftReport(envelope({ type: 'ToolQuarantined' }))).toMatchObject({ ok: false, problem: expect.stringContaining('ToolQuarantined@1') });
    expect(readDriftReport(envelope({}, { version: '' }))).toMatchObject({ ok: false, problem: expect.stringMatching(/^ToolVersionDriftDetected@1 payload off its schema: \$\.version/) });
  });
});
