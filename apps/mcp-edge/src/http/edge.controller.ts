import { Controller, Get, Inject } from '@nestjs/common';

export const EDGE_METADATA = Symbol('EdgeMetadata');

const RESOURCE_METADATA = ['.well-known/oauth-protected-resource', '.well-known/oauth-protected-resource/mcp'];

/** Every path this controller serves (all GET); anything else is refused before Nest routes it. */
export const EDGE_ROUTES = ['/healthz', ...RESOURCE_METADATA.map((path) => `/${path}`)];

export interface EdgeMetadata {
  resource: string;
  authorizationServers: string[];
  sessions(): number;
  tools(): number;
  /** Catalog records this edge could not apply since it started: the dead-letter metric. */
  deadLetters(): number;
}

@Controller()
export class EdgeController {
  constructor(@Inject(EDGE_METADATA) private readonly meta: EdgeMetadata) {}

  /**
   * OAuth 2.0 protected-resource metadata (RFC 9728), where the 401 challenge points; also at the
   * path-suffixed location RFC 9728 derives from the resource URL `<base>/mcp`.
   */
  @Get(RESOURCE_METADATA)
  resourceMetadata() {
    return {
      resource: this.meta.resource,
      authorization_servers: this.meta.authorizationServers,
      bearer_methods_supported: ['header'],
      scopes_supported: [],
    };
  }

  @Get('healthz')
  health() {
    return { status: 'ok', sessions: this.meta.sessions(), tools: this.meta.tools(), deadLetters: this.meta.deadLetters() };
  }
}
