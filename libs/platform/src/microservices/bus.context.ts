import { BaseRpcContext } from '@nestjs/microservices';
import type { QueryRunner } from 'typeorm';

/** Where a batch came from and, for a consumer that keeps its own positions, the transaction it is applied in. */
export interface BusBatchOrigin {
  topic: string;
  partition: number;
  /** Offsets of the first and last message handed to the handler. */
  firstOffset: string;
  lastOffset: string;
}

type AfterCommit = () => Promise<void>;

/**
 * The context an `@EventPattern` handler of the bus transport receives beside its batch. For a
 * transactional subscription it carries the open transaction: the handler writes its effect
 * through `transaction`, the transport writes the position in the same transaction and commits
 * both, so a crash keeps both or neither.
 */
export class BusContext extends BaseRpcContext<[BusBatchOrigin, QueryRunner | undefined, AfterCommit[]]> {
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
}
