import type { HttpException } from '@nestjs/common';
import { httpError } from '@estate/platform';

/** Every way the webhook routes refuse; the mapper below is the only place that knows HTTP. */
export type WebhookErrorCode = 'INVALID_SUBSCRIPTION' | 'TARGET_REFUSED' | 'SUBSCRIPTION_NOT_FOUND' | 'DELIVERY_NOT_FOUND';

export interface WebhookError {
  code: WebhookErrorCode;
  message: string;
  path?: string;
}

export const isWebhookError = (value: unknown): value is WebhookError =>
  typeof value === 'object' && value !== null && 'code' in value && 'message' in value;

function statusOf(code: WebhookErrorCode): number {
  switch (code) {
    case 'INVALID_SUBSCRIPTION':
    case 'TARGET_REFUSED':
      return 400;
    case 'SUBSCRIPTION_NOT_FOUND':
    case 'DELIVERY_NOT_FOUND':
      return 404;
    default: {
      const unreachable: never = code;
      throw new Error(`unmapped webhook error ${String(unreachable)}`);
    }
  }
}

export function webhookHttpError(error: WebhookError): HttpException {
  return httpError(statusOf(error.code), error.code, error.message, error.path === undefined ? undefined : { path: error.path });
}

export const WEBHOOK_ADMINS = ['estate:admin'];
export const WEBHOOK_ADMIN_REFUSAL = 'managing webhook subscriptions needs scope estate:admin';
