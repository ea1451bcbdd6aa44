import { BaseRpcContext } from '@nestjs/microservices';
import type { QueryRunner } from 'typeorm';
import type { StoredPosition } from '../log-position';

/** Where a batch came from and, for a consumer that keeps its own positions, the transaction it is applied in. */
export interface BusBatchOrigin {
  topic: string;
  partition: number;
  /** Offsets of the first and last message handed to the handler. */
  firstOffset: string;
  lastOffset: string;
}

type AfterCommit = () => Promise<void>;

/** The position a transactional subscription stores with the batch, and whether the handler wrote it itself. */
export interface BatchPosition {
  position: StoredPosition;
  storedByHandler: boolean;
}

/**
 * The context an `@EventPattern` handler of the bus transport receives beside its batch. For a
 * transactional subscription it carries the open transaction: the handler writes its effect
 * through `transaction`, the transport writes the position in the same transaction and commits
 * both, so a crash keeps both or neither.
 */
export class BusContext extends BaseRpcContext<[BusBatchOrigin, QueryRunner | undefined, AfterCommit[], BatchPosition?]> {
  get origin(): BusBatchOrigin {
    return this.args[0];
  }

  /** The batch's transaction; undefined for a subscription whose positions the bus keeps. */
  get transaction(): QueryRunner | undefined {
    return this.args[1];
  }

  /** The transaction, for handlers bound to a transactional subscription (a wiring error otherwise). */
  requireTransaction(): QueryRunner {
    const runner = this.args[1];
    if (!runner) throw new Error(`the subscription to ${this.origin.topic} is not transactional: bind it with a database and a position store`);
    return runner;
  }

  /**
   * Work to run once the batch committed (publishing what changed). The transport retries it
   * until it succeeds: the batch is applied and its position stored, so it is not read again.
   */
  afterCommit(work: AfterCommit): void {
    this.args[2].push(work);
  }

  /**
   * What the transport stores as the batch's position, in its transaction, after the handler: a
   * handler whose own statement can carry it writes it there and calls `positionStored`, and the
   * transport then writes nothing more. Undefined for a subscription whose positions the bus keeps.
   */
  get position(): StoredPosition | undefined {
    return this.args[3]?.position;
  }

  /** The handler wrote `position` in the batch's transaction (with its position store's row and columns). */
  positionStored(): void {
    const batch = this.args[3];
    if (!batch) throw new Error(`the subscription to ${this.origin.topic} keeps no position of its own`);
    batch.storedByHandler = true;
  }
}
