import type { PublishToolVersion } from '../publish/publish.command';

/** A check is a publish that stores nothing: the same command, judged the same way. */
export type CheckToolVersion = PublishToolVersion;
