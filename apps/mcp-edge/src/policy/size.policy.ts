/** UTF-8 size of a value as JSON: what the upstream or the client would receive. */
export function jsonBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value ?? null), 'utf8');
}

export interface SizeVerdict {
  ok: boolean;
  bytes: number;
  limit: number;
}

export function checkSize(value: unknown, limit: number): SizeVerdict {
  const bytes = jsonBytes(value);
  return { ok: bytes <= limit, bytes, limit };
}
