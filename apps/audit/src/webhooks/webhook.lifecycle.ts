import { Inject, Injectable, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { WebhookDispatcher } from './webhook.dispatcher';

/**
 * Workers start with the application and stop before any shutdown hook closes the database
 * (every `beforeApplicationShutdown` runs before the first `onApplicationShutdown`): an attempt
 * in flight ends, bounded by the request timeout, and is either recorded or tried again after a restart.
 */
@Injectable()
export class WebhookLifecycle implements OnApplicationBootstrap, BeforeApplicationShutdown {
  constructor(@Inject(WebhookDispatcher) private readonly dispatcher: WebhookDispatcher) {}

  onApplicationBootstrap(): Promise<void> {
    return this.dispatcher.start();
  }

  beforeApplicationShutdown(): Promise<void> {
    return this.dispatcher.stop();
  }
}
