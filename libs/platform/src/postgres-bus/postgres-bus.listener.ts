import { Client } from 'pg';
import type { Logger } from 'pino';
import { BUS_CHANNEL } from './postgres-bus.log';

const RECONNECT_MS = 1000;
const END_TIMEOUT_MS = 2000;

/**
 * One LISTEN session per bus: turns NOTIFYs from any process into wake-ups of local consumers.
 * It reconnects on its own; consumers also poll slowly, so a lost session only slows them down.
 */
export class PostgresBusListener {
  private client?: Client;
  private timer?: NodeJS.Timeout;
  private closed = false;
  /** Said once per outage, not once per reconnect attempt. */
  private down = false;

  constructor(
    private readonly url: string,
    private readonly wake: (topic: string | undefined) => void,
    private readonly logger: Logger,
  ) {}

  async start(): Promise<void> {
    await this.connect().catch((error: unknown) => this.retry(error));
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    const client = this.client;
    this.client = undefined;
    if (!client) return;
    // A dead server must not hold up a stop: give the goodbye a moment, then drop the socket.
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      client.end().catch(() => undefined),
      new Promise<void>((resolve) => (timer = setTimeout(resolve, END_TIMEOUT_MS))),
    ]);
    clearTimeout(timer);
  }

  private async connect(): Promise<void> {
    const client = new Client({ connectionString: this.url });
    const lost = (error?: unknown) => {
      if (this.client !== client) return;
      this.client = undefined;
      void client.end().catch(() => undefined);
      this.retry(error);
    };
    client.on('error', lost);
    client.on('end', () => lost());
    client.on('notification', (n) => this.wake(n.payload));
    await client.connect();
    // Raw SQL: LISTEN holds a session of its own, which TypeORM's pooled connections cannot keep.
    await client.query(`LISTEN ${BUS_CHANNEL}`);
    if (this.closed) {
      await client.end();
      return;
    }
    this.client = client;
    if (this.down) this.logger.info('bus listener is back');
    this.down = false;
    // Anything published while no session listened was missed: let every consumer look.
    this.wake(undefined);
  }

  private retry(error: unknown): void {
    if (this.closed || this.timer) return;
    if (!this.down) this.logger.warn({ err: error }, 'bus listener lost its session; consumers poll until it is back');
    this.down = true;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (!this.closed) void this.connect().catch((e: unknown) => this.retry(e));
    }, RECONNECT_MS);
    this.timer.unref();
  }
}
