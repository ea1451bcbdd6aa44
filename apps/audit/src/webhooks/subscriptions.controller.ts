import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Post } from '@nestjs/common';
import type { Principal } from '@estate/contracts';
import { CurrentPrincipal, RequireScope } from '@estate/platform';
import { isWebhookError, WEBHOOK_ADMIN_REFUSAL, WEBHOOK_ADMINS, webhookHttpError } from './webhook.errors';
import { WebhookSubscriptions } from './webhook.subscriptions';

/** Answers a use case's result, or throws its refusal as HTTP. */
async function answer<T extends object>(result: Promise<T>): Promise<T> {
  const value = await result;
  if (isWebhookError(value)) throw webhookHttpError(value);
  return value;
}

/** Webhook subscriptions: an admin's, since a subscription sees every tool's events. */
@Controller('v1/subscriptions')
@RequireScope(WEBHOOK_ADMINS, WEBHOOK_ADMIN_REFUSAL)
export class SubscriptionsController {
  constructor(@Inject(WebhookSubscriptions) private readonly subscriptions: WebhookSubscriptions) {}

  @Post()
  create(@Body() body: unknown, @CurrentPrincipal() caller: Principal) {
    return answer(this.subscriptions.create(body, caller));
  }

  @Get()
  list() {
    return answer(this.subscriptions.list());
  }

  @Get(':id')
  get(@Param('id') id: string) {
    return answer(this.subscriptions.get(id));
  }

  @Delete(':id')
  remove(@Param('id') id: string, @CurrentPrincipal() caller: Principal) {
    return answer(this.subscriptions.remove(id, caller));
  }

  @Get(':id/dead-letters')
  deadLetters(@Param('id') id: string) {
    return answer(this.subscriptions.deadLetters(id));
  }

  @Post(':id/dead-letters/:deliveryId/replay')
  @HttpCode(202)
  replay(@Param('id') id: string, @Param('deliveryId') deliveryId: string, @CurrentPrincipal() caller: Principal) {
    return answer(this.subscriptions.replay(id, deliveryId, caller));
  }
}
