import type { Admin, Kafka, RetryOptions } from 'kafkajs';

/**
 * One kafkajs admin connection, kept open and used one operation at a time. After a failure it is
 * replaced and the work tried once more: a kafkajs admin keeps refreshing metadata for every topic
 * it ever asked about, and fails on each call once one of them was deleted (a broker's data lost).
 *
 * kafkajs's admin is not safe for concurrent calls: two `fetchTopicOffsets` at once share one
 * metadata refresh and can fail with a TypeError, and replacing the admin after such a failure
 * closed the connection under every other caller (the relay then failed with "Closed
 * connection"). The queue runs one operation at a time, so an admin is only replaced when nobody
 * else uses it.
 */
export class KafkaAdminQueue {
  private admin?: Promise<Admin>;
  /** The tail of the work queue. */
  private tail: Promise<unknown> = Promise.resolve();

  /** `retry`: the admin's own retries (offsets, topic creation); connecting keeps the client's. */
  constructor(private readonly kafka: Kafka, private readonly retry?: RetryOptions) {}

  run<T>(work: (admin: Admin) => Promise<T>): Promise<T> {
    const turn = this.tail.then(() => this.once(work));
    this.tail = turn.catch(() => undefined);
    return turn;
  }

  /** The admin in use, if one was opened (the bus's close lets go of it). */
  get current(): Promise<Admin> | undefined {
    return this.admin;
  }

  private async once<T>(work: (admin: Admin) => Promise<T>): Promise<T> {
    try {
      return await work(await this.open());
    } catch {
      this.drop();
      return work(await this.open());
    }
  }

  private open(): Promise<Admin> {
    if (!this.admin) {
      const admin = this.kafka.admin(this.retry ? { retry: this.retry } : {});
      const connected = admin.connect().then(() => admin);
      connected.catch(() => {
        if (this.admin === connected) this.admin = undefined;
      });
      this.admin = connected;
    }
    return this.admin;
  }

  private drop(): void {
    const pending = this.admin;
    this.admin = undefined;
    void pending?.then((admin) => admin.disconnect()).catch(() => undefined);
  }
}
