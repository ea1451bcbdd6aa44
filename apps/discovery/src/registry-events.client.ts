import type { EventEnvelope } from '@estate/events';
import { issueDevToken } from '@estate/platform';
import type { RegistryEventSource } from './catalog.rebuilder';

export interface RegistryEventsOptions {
  registryUrl: string;
  /** A bearer token with estate:admin issued to discovery, if there is one. */
  serviceToken?: string;
  /** Otherwise discovery signs its own short-lived token with the shared HS256 secret. */
  jwtSecret?: string;
  issuer?: string;
  audience?: string;
}

export const DISCOVERY_SERVICE_PRINCIPAL = 'estate-discovery';

/** Reads the registry's event store over `GET /v1/events` (admin only). */
export class RegistryEventsClient implements RegistryEventSource {
  constructor(private readonly options: RegistryEventsOptions) {}

  async count(): Promise<number> {
    return (await this.get('0', 1)).total ?? 0;
  }

  async read(after: string, limit: number): Promise<{ events: EventEnvelope[]; next: string }> {
    const { events, next } = await this.get(after, limit);
    return { events, next };
  }

  private async get(after: string, limit: number): Promise<{ events: EventEnvelope[]; next: string; total?: number }> {
    const url = `${this.options.registryUrl.replace(/\/$/, '')}/v1/events?after=${encodeURIComponent(after)}&limit=${limit}`;
    const response = await fetch(url, { headers: { authorization: `Bearer ${await this.token()}` } });
    if (!response.ok) throw new Error(`the registry answered ${response.status} to GET /v1/events: ${(await response.text()).slice(0, 300)}`);
    return (await response.json()) as { events: EventEnvelope[]; next: string; total?: number };
  }

  private async token(): Promise<string> {
    if (this.options.serviceToken) return this.options.serviceToken;
    if (!this.options.jwtSecret) throw new Error('no ESTATE_DISCOVERY_SERVICE_TOKEN and no ESTATE_JWT_SECRET to sign one with');
    return issueDevToken(this.options.jwtSecret, { sub: DISCOVERY_SERVICE_PRINCIPAL, scope: 'estate:admin', clearance: 'restricted' }, {
      issuer: this.options.issuer, audience: this.options.audience, expiresIn: '5m',
    });
  }
}
