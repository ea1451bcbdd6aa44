import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import type { Principal } from '@estate/contracts';
import type { FeedFilter } from '@estate/events';
import { urlHost, type TargetAddressPolicy } from '@estate/platform';
import type { AuditRepository } from '../store/audit.repository';
import { storableEntry } from '../store/storable-entry';
import { feedStartAfter, type FeedPositions, type FeedStart } from '../stream/feed.start';
import { parseSubscription } from './subscription.parser';
import type { WebhookDispatcher } from './webhook.dispatcher';
import type { WebhookError } from './webhook.errors';
import type { Delivery, Subscription, WebhookRepository } from './webhook.repository';
import { webhookTrailEntry, type WebhookFactType } from './webhook.trail';

export interface SubscriptionView {
  id: string;
  url: string;
  filter: Subscription['filter'];
  createdBy: string;
  createdAt: string;
  deliveries: { pending: number; delivered: number; dead: number };
}

const DEAD_LETTER_PAGE = 100;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface SubscriptionParts {
  repo: WebhookRepository;
  trail: AuditRepository;
  /** Where `filter.since` falls in the feed (stream/feed.start.ts). */
  positions: FeedPositions;
  dispatcher: WebhookDispatcher;
  policy: TargetAddressPolicy;
  now: () => Date;
  newId: () => string;
  newSecret: () => string;
}

const deadLetterView = (d: Delivery) => ({ id: d.id, eventId: d.eventId, tool: d.tool || null, attempts: d.attempts, lastError: d.lastError, seq: d.seq });

/** The subscription use cases: each returns its answer or a WebhookError, and records what it changed in the trail. */
export class WebhookSubscriptions {
  constructor(private readonly parts: SubscriptionParts) {}

  async create(body: unknown, caller: Principal): Promise<{ subscription: SubscriptionView; secret: string } | WebhookError> {
    const parsed = parseSubscription(body, this.parts.policy);
    if (!parsed.ok) return { code: 'INVALID_SUBSCRIPTION', message: parsed.message, path: parsed.path };
    const refused = await this.refusedName(parsed.value.url);
    if (refused) return { code: 'TARGET_REFUSED', message: refused, path: 'url' };
    const { filter } = parsed.value;
    // Without `since` a subscription starts with the next event; a position or time replays from there.
    const cursor = await feedStartAfter(startOf(filter), this.parts.positions, this.parts.now());
    if (!cursor.ok) return { code: 'INVALID_SUBSCRIPTION', message: cursor.message, path: cursor.parameter };
    const subscription: Subscription = {
      id: this.parts.newId(), url: parsed.value.url.href, filter, secret: parsed.value.secret ?? this.parts.newSecret(),
      createdBy: caller.id, createdAt: this.parts.now().toISOString(), cursorSeq: cursor.value,
    };
    await this.parts.repo.create(subscription);
    await this.record('WebhookSubscribed', subscription.id, caller, { url: subscription.url, filter });
    this.parts.dispatcher.add(subscription);
    return { subscription: await this.view(subscription), secret: subscription.secret };
  }

  async list(): Promise<{ subscriptions: SubscriptionView[] }> {
    return { subscriptions: await Promise.all((await this.parts.repo.all()).map((s) => this.view(s))) };
  }

  async get(id: string): Promise<SubscriptionView | WebhookError> {
    const subscription = await this.find(id);
    return subscription ? this.view(subscription) : notFound(id);
  }

  async remove(id: string, caller: Principal): Promise<{ deleted: string } | WebhookError> {
    if (!UUID.test(id)) return notFound(id);
    await this.parts.dispatcher.remove(id);
    if (!(await this.parts.repo.delete(id))) return notFound(id);
    await this.record('WebhookUnsubscribed', id, caller, {});
    return { deleted: id };
  }

  async deadLetters(id: string) {
    if (!(await this.find(id))) return notFound(id);
    return { deadLetters: (await this.parts.repo.deadLetters(id, DEAD_LETTER_PAGE)).map(deadLetterView) };
  }

  async replay(id: string, deliveryId: string, caller: Principal) {
    if (!(await this.find(id))) return notFound(id);
    const delivery = await this.parts.repo.replay(id, deliveryId, this.parts.now());
    if (!delivery) return { code: 'DELIVERY_NOT_FOUND', message: `no dead letter ${deliveryId} in subscription ${id}`, path: 'deliveryId' } satisfies WebhookError;
    await this.record('WebhookReplayRequested', id, caller, { deliveryId, eventId: delivery.eventId }, delivery.tool);
    this.parts.dispatcher.wake(id);
    return { replaying: deadLetterView(delivery) };
  }

  private async find(id: string): Promise<Subscription | undefined> {
    return UUID.test(id) ? this.parts.repo.get(id) : undefined;
  }

  /** A host name is judged by what it resolves to now (and again at every delivery). */
  private async refusedName(url: URL): Promise<string | undefined> {
    const host = urlHost(url);
    if (isIP(host) !== 0 || this.parts.policy.admitsHostName(host)) return undefined;
    const addresses = await lookup(host, { all: true }).catch(() => undefined);
    if (!addresses || addresses.length === 0) return `${host} does not resolve`;
    const forbidden = addresses.find((a) => !this.parts.policy.admitsAddress(a.address));
    return forbidden ? `${host} resolves to ${forbidden.address}, a link-local, metadata, loopback or private address; allow it with ESTATE_WEBHOOK_ALLOW` : undefined;
  }

  private async view(subscription: Subscription): Promise<SubscriptionView> {
    const { id, url, filter, createdBy, createdAt } = subscription;
    return { id, url, filter, createdBy, createdAt, deliveries: await this.parts.repo.counts(id) };
  }

  private async record(type: WebhookFactType, subscriptionId: string, caller: Principal, data: Record<string, unknown>, tool?: string): Promise<void> {
    const fact = { id: this.parts.newId(), type, subscriptionId, actor: caller.id, at: this.parts.now(), tool, data: { subscriptionId, ...data } };
    await this.parts.trail.appendOne(storableEntry(webhookTrailEntry(fact)), { notify: false });
  }
}

/** A subscription's `since`: subscriptions are an admin's, so positions are plain. */
function startOf(filter: FeedFilter): FeedStart {
  if (filter.sincePosition !== undefined) return { kind: 'position', position: filter.sincePosition, parameter: 'filter.since', sealed: false };
  if (filter.sinceTime !== undefined) return { kind: 'time', time: filter.sinceTime, parameter: 'filter.since' };
  return { kind: 'next' };
}

const notFound = (id: string): WebhookError => ({ code: 'SUBSCRIPTION_NOT_FOUND', message: `no subscription ${id}`, path: 'id' });
