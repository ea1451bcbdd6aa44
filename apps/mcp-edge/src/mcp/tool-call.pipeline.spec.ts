import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { createLogger, InMemoryEventBus } from '@estate/platform';
import type { CatalogEntry } from '@estate/events';
import { CatalogReplica } from '../catalog/catalog.replica';
import { CallRecorder } from '../calls/call.recorder';
import { CallPolicy, DEFAULT_POLICY_LIMITS } from '../policy/call.policy';
import { EdgeSession } from '../sessions/edge-session';
import { UpstreamPool } from '../upstream/upstream.pool';
import { ToolCallPipeline } from './tool-call.pipeline';

describe('tool call pipeline: the edge\'s own failures', () => {
  const logger = createLogger('pipeline-spec', 'silent');
  const replica = new CatalogReplica(logger, 0);
  const spool = { dir: mkdtempSync(path.join(tmpdir(), 'pipeline-spool-')), maxBytes: 4096, syncMs: 10 };
  const recorder = new CallRecorder(new InMemoryEventBus(), { topic: 'calls', spool }, logger);
  const pipeline = new ToolCallPipeline(replica, new UpstreamPool(logger), recorder, new CallPolicy(DEFAULT_POLICY_LIMITS), { timeoutMs: 1000, logger });
  const session = new EdgeSession('s1', { id: 'p', scopes: [], clearance: 'internal' }, 0);

  afterAll(async () => {
    replica.flush();
    await recorder.close();
  });

  it('answers a corrupt catalog record with -32603, never as the caller\'s invalid params', async () => {
    // A record that breaks the edge's own assumptions (a version without a spec): our bug, not the caller's.
    const broken = { name: 'bank.lookup', position: 1, upstream: { server: 'bank' }, versions: [{ version: '1.0.0', status: 'active', quarantined: false, spec: null }] };
    replica.apply('bank.lookup', broken as unknown as CatalogEntry);
    await expect(pipeline.call(session, { name: 'bank.lookup', arguments: {} })).rejects.toMatchObject({ code: -32603, message: 'Internal error' });
  });

  it('refuses malformed params with -32602 and a path', async () => {
    await expect(pipeline.call(session, { name: '' })).rejects.toMatchObject({ code: -32602, data: { path: '/name' } });
  });

  it('refuses every call while the call spool is full, and takes calls again once the bus has the records', async () => {
    // Refusals recorded faster than the bus is given a turn fill the 4 KiB spool.
    while (recorder.accepting) await pipeline.call(session, { name: '' }).catch(() => undefined);
    await expect(pipeline.call(session, { name: 'bank.lookup', arguments: {} })).rejects.toMatchObject({ code: -32000, message: expect.stringContaining('cannot record calls') });
    await recorder.flush();
    expect(recorder.accepting).toBe(true);
    await expect(pipeline.call(session, { name: '' })).rejects.toMatchObject({ code: -32602 });
  });
});
