import { UriTemplate } from '@modelcontextprotocol/sdk/shared/uriTemplate.js';

/**
 * Which upstream server listed each resource URI and template, as one caller saw the lists. URIs
 * pass through the edge unchanged, so a URI is attributed to whoever listed it (or whose template
 * matches it). A session keeps its map for its lifetime; a 2026-07-28 request builds one anew.
 */
export class ResourceAttribution {
  readonly resources = new Map<string, string>();
  readonly templates = new Map<string, { template: UriTemplate; server: string }>();

  rememberResource(uri: string, server: string): void {
    if (!this.resources.has(uri)) this.resources.set(uri, server);
  }

  rememberTemplate(raw: string, server: string): void {
    if (this.templates.has(raw)) return;
    try {
      this.templates.set(raw, { template: new UriTemplate(raw), server });
    } catch {
      // An upstream template we cannot parse is listed as-is but never used for attribution.
    }
  }

  /** The server that listed this URI, or whose template matches it. */
  serverOf(uri: string): string | undefined {
    const listed = this.resources.get(uri);
    if (listed !== undefined) return listed;
    for (const { template, server } of this.templates.values()) if (template.match(uri)) return server;
    return undefined;
  }
}
