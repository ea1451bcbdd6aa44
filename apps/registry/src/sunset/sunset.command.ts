import type { ToolCommand } from '../domain/tool.decider';

export type ReachSunsets = Extract<ToolCommand, { type: 'ReachSunsets' }>;

/** Every deprecated version of `name` whose sunset date is at or before `now` retires. */
export function reachSunsets(name: string, now: Date): ReachSunsets {
  return { type: 'ReachSunsets', name, now: now.toISOString() };
}
