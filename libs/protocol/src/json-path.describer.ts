/**
 * Builds the member paths error messages point at, e.g. `params._meta["io.modelcontextprotocol/clientInfo"].name`.
 * Plain identifiers are joined with a dot; any other key is quoted so the path can be read back.
 */
export function memberPath(parent: string, key: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(key) ? `${parent}.${key}` : `${parent}[${JSON.stringify(key)}]`;
}

export function indexPath(parent: string, index: number): string {
  return `${parent}[${index}]`;
}
