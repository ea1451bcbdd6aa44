import type { Pins } from '@estate/catalog';
import type { Principal } from '@estate/contracts';
import type { Logger } from '@estate/platform';
import { subscriptionClosed, subscriptionNotification, type Implementation, type JsonRpcId, type JsonRpcMessage, type SubscriptionFilter } from '@estate/protocol';
import { listChangedFor, type CatalogChange, type CatalogReplica } from '../catalog/catalog.replica';

/** One open subscriptions/listen stream: whose it is, what it asked for, and where its messages go. */
export interface ListenStream {
  readonly id: JsonRpcId;
  readonly principal: Principal;
  readonly pins: Pins;
  readonly filter: SubscriptionFilter;
  send(message: JsonRpcMessage): void;
  /** Ends the stream on the edge's initiative, after its closing answer. */
  end(): void;
}

/**
 * The 2026-07-28 streams that listen for tool list changes. A catalog change is judged per stream
 * by the rule sessions use (listChangedFor): a stream hears tools/list_changed only when a
 * changed tool resolves, for its principal and pins, to another version or to none. Several
 * changes in one tick make one notification.
 */
export class ListChangeListeners {
  private readonly streams = new Set<ListenStream>();
  private readonly pending = new Set<ListenStream>();

  constructor(replica: CatalogReplica, private readonly logger: Logger) {
    replica.onChange((changes) => this.onCatalogChange(changes));
  }

  get size(): number {
    return this.streams.size;
  }

  /** Adds a stream; the returned function removes it (when its HTTP response closes). */
  add(stream: ListenStream): () => void {
    this.streams.add(stream);
    return () => {
      this.streams.delete(stream);
      this.pending.delete(stream);
    };
  }

  /**
   * Shutdown: every stream gets the answer to its listen request (so its client knows the end
   * was meant, not a drop) and is closed; an open stream would also hold the HTTP server's close.
   */
  closeAll(serverInfo?: Implementation): void {
    for (const stream of [...this.streams]) {
      this.streams.delete(stream);
      this.pending.delete(stream);
      stream.send(subscriptionClosed(stream.id, serverInfo));
      stream.end();
    }
  }

  private onCatalogChange(changes: CatalogChange[]): void {
    let notified = 0;
    for (const stream of this.streams) {
      if (stream.filter.toolsListChanged !== true || this.pending.has(stream)) continue;
      if (!listChangedFor(changes, stream.principal, stream.pins)) continue;
      notified += 1;
      this.pending.add(stream);
      setImmediate(() => {
        if (!this.pending.delete(stream)) return;
        const message = subscriptionNotification(stream.id, stream.filter, 'notifications/tools/list_changed');
        if (message) stream.send(message);
      });
    }
    if (notified > 0) this.logger.debug({ notified, changed: changes.length }, 'tools/list_changed sent to listen streams');
  }
}
