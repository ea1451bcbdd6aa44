import { isIP } from 'node:net';
import type { CloudEventOptions } from '@estate/events';
import type { CommonConfig } from '@estate/platform';

export type AdvertisedCloudEvents = CommonConfig['cloudEvents'];

/** The address clients connect to for a server bound to `host:port`; an unspecified host means loopback. */
export function listeningUrl(host: string, port: number): string {
  const reachable = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host;
  return `http://${isIP(reachable) === 6 ? `[${reachable}]` : reachable}:${port}`;
}

/**
 * Where audit tells clients to find it: each CloudEvent's `dataschema` and the AsyncAPI document's
 * `audit` server. ESTATE_AUDIT_PUBLIC_URL when it is set; otherwise the address audit listens on,
 * known only once the server is bound (ESTATE_AUDIT_PORT=0 picks the port then), so readers ask
 * for it each time instead of keeping it.
 */
export class AdvertisedAddress {
  private current: AdvertisedCloudEvents;

  constructor(private readonly configured: AdvertisedCloudEvents, private readonly publicUrlSet: boolean) {
    this.current = configured;
  }

  /** The server is bound: unless a public URL is configured, that address is the one to advertise. */
  listeningOn(host: string, port: number): void {
    if (this.publicUrlSet) return;
    const base = listeningUrl(host, port);
    this.current = { source: this.configured.source, schemaBase: `${base}/v1/schemas/events`, auditUrl: base };
  }

  get cloudEvents(): AdvertisedCloudEvents {
    return this.current;
  }

  /** For the feed and the webhook workers, which read it per event. */
  readonly options = (): CloudEventOptions => this.current;
}
