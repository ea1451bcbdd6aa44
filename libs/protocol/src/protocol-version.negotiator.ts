/**
 * The session-based MCP revisions this gateway speaks, newest first: all of them open with the
 * initialize handshake. The stateless revision (2026-07-28) is decided per HTTP request in
 * request-era.negotiator.ts and never goes through initialize, so it is not listed here.
 */
export const SUPPORTED_PROTOCOL_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'] as const;

export type ProtocolVersion = (typeof SUPPORTED_PROTOCOL_VERSIONS)[number];

export const LATEST_PROTOCOL_VERSION: ProtocolVersion = SUPPORTED_PROTOCOL_VERSIONS[0];

export function isSupportedProtocolVersion(version: unknown): version is ProtocolVersion {
  return SUPPORTED_PROTOCOL_VERSIONS.some((supported) => supported === version);
}

/**
 * The version to answer an initialize with: the client's own proposal when we speak it,
 * otherwise our newest, which the client may accept or disconnect over. A mismatch is an
 * offer, never an error, so this accepts any input and never throws.
 */
export function negotiateProtocolVersion(requested: unknown): ProtocolVersion {
  return isSupportedProtocolVersion(requested) ? requested : LATEST_PROTOCOL_VERSION;
}
