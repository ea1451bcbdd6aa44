/** Nest tokens for the registry's ports and pure parts, bound by the module. */
export const EVENT_STORE = Symbol('EventStore');
/** The tool decider with the composition root's classifier (cached) inside. */
export const TOOL_DECIDER = Symbol('ToolDecider');
/** The schema-change classifier every use case shares, so they share its cache too. */
export const CLASSIFY_CHANGE = Symbol('ClassifyChange');
