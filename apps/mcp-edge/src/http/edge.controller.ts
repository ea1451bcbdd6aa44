import { Controller, Get, Inject } from '@nestjs/common';
import { METRICS_PATH } from '@estate/platform';

export const EDGE_METADATA = Symbol('EdgeMetadata');

const RESOURCE_METADATA = ['.well-known/oauth-protected-resource', '.well-known/oauth-protected-resource/mcp'];

/**
 * Every path the edge serves besides /mcp (all GET; health and metrics routes from libs/platform);
 * anything else is refused before Nest routes it. /metrics is answered before this list is consulted.
 */
export const EDGE_ROUTES = ['/healthz', '/readyz', '/v1/status', METRICS_PATH, ...RESOURCE_METADATA.map((path) => `/${path}`)];

export interface EdgeMetadata {
  resource: string;
  authorizationServers: string[];
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
}
