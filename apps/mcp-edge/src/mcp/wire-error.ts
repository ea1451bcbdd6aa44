/**
 * An error the SDK puts on the wire as-is: it reads `code` and `data` from whatever a handler
 * throws. (A thrown McpError gets its message prefixed twice by SDK 1.x clients.)
 */
export class WireError extends Error {
  constructor(readonly code: number, message: string, readonly data?: unknown) {
    super(message);
  }
}

/** The one answer for a tool that does not exist and a tool the caller may not see. */
export function unknownTool(name: string): WireError {
  return new WireError(-32601, `Unknown tool: ${name}`);
}
