import { ConfigResourceTypes, type Admin } from 'kafkajs';
import type { Logger } from 'pino';
import type { TopicSpec } from './event-bus.port';

/** The topic-level settings a spec declares (Kafka config names and string values). */
export function declaredConfig(spec: TopicSpec): Record<string, string> {
  const config: Record<string, string> = { 'cleanup.policy': spec.compacted ? 'compact' : 'delete' };
  if (spec.retentionMs !== undefined) config['retention.ms'] = String(spec.retentionMs);
  if (spec.retentionBytes !== undefined) config['retention.bytes'] = String(spec.retentionBytes);
  if (spec.maxMessageBytes !== undefined) config['max.message.bytes'] = String(spec.maxMessageBytes);
  return config;
}

/** Kafka's config source for a value set on the topic itself (DescribeConfigs v1+). */
const DYNAMIC_TOPIC_CONFIG = 1;

interface DescribedEntry {
  configName: string;
  configValue: string | null;
  isDefault?: boolean;
  configSource?: number;
}

/**
 * Brings existing topics to their declared configuration. AlterConfigs replaces every value set
 * on a topic, so the values set by someone else are sent back unchanged alongside ours. A topic
 * that cannot be corrected is refused: running on a log that ages out would lose the truth.
 */
export async function correctTopicConfigs(admin: Admin, specs: TopicSpec[], logger: Logger): Promise<void> {
  if (specs.length === 0) return;
  const described = await admin.describeConfigs({
    includeSynonyms: false,
    resources: specs.map((s) => ({ type: ConfigResourceTypes.TOPIC, name: s.name })),
  });
  for (const spec of specs) {
    const resource = described.resources.find((r) => r.resourceName === spec.name);
    const entries = (resource?.configEntries ?? []) as DescribedEntry[];
    const current = new Map(entries.map((e) => [e.configName, e.configValue]));
    const wanted = declaredConfig(spec);
    const wrong = Object.entries(wanted).filter(([name, value]) => current.get(name) !== value);
    if (wrong.length === 0) continue;
    const kept = entries
      .filter((e) => e.configSource === DYNAMIC_TOPIC_CONFIG && !(e.configName in wanted) && e.configValue !== null)
      .map((e) => ({ name: e.configName, value: e.configValue as string }));
    const changes = wrong.map(([name, value]) => `${name}=${current.get(name) ?? 'unset'} → ${value}`).join(', ');
    try {
      await admin.alterConfigs({
        validateOnly: false,
        resources: [{ type: ConfigResourceTypes.TOPIC, name: spec.name, configEntries: [...kept, ...Object.entries(wanted).map(([name, value]) => ({ name, value }))] }],
      });
    } catch (error) {
      const found = wrong.map(([name, value]) => `${name}=${current.get(name) ?? 'unset'} (declared ${value})`).join(', ');
      throw new Error(`topic ${spec.name} has ${found} and could not be corrected: ${(error as Error).message}`, { cause: error });
    }
    logger.warn({ topic: spec.name, changes }, `topic ${spec.name} did not have its declared configuration; corrected (${changes})`);
  }
}
