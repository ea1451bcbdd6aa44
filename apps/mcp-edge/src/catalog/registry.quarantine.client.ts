import { issueDevToken } from '@estate/platform';
import type { QuarantineReporter } from './drift.watcher';

export interface RegistryClientOptions {
  registryUrl: string;
  /** A bearer token with the estate:quarantine scope, if one was issued to the edge. */
  serviceToken?: string;
  /** Otherwise the edge signs its own short-lived token with the shared HS256 secret. */
  jwtSecret?: string;
  issuer?: string;
  audience?: string;
}

export const EDGE_SERVICE_PRINCIPAL = 'estate-edge';

/** POSTs /v1/tools/{name}/versions/{version}/quarantine as the edge's service principal. */
export class RegistryQuarantineClient implements QuarantineReporter {
  constructor(private readonly options: RegistryClientOptions) {}

  async quarantine(name: string, version: string, reason: string): Promise<void> {
    const url = `${this.options.registryUrl.replace(/\/$/, '')}/v1/tools/${encodeURIComponent(name)}/versions/${encodeURIComponent(version)}/quarantine`;
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${await this.token()}` },
      body: JSON.stringify({ reason }),
    });
    if (!response.ok) throw new Error(`the registry answered ${response.status}: ${await response.text()}`);
  }

  private async token(): Promise<string> {
    if (this.options.serviceToken) return this.options.serviceToken;
    if (!this.options.jwtSecret) throw new Error('no ESTATE_EDGE_SERVICE_TOKEN and no ESTATE_JWT_SECRET to sign one with');
    return issueDevToken(this.options.jwtSecret, { sub: EDGE_SERVICE_PRINCIPAL, scope: 'estate:quarantine', clearance: 'restricted' }, {
      issuer: this.options.issuer, audience: this.options.audience, expiresIn: '5m',
    });
  }
}
