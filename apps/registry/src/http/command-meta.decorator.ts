import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { Principal } from '@estate/contracts';
import type { AppendMeta } from '../store/event-store.port';

interface CommandRequest {
  principal?: Principal;
  headers: Record<string, string | string[] | undefined>;
}

/**
 * Who is acting and under which correlation id, as every recorded event carries them. The
 * caller's `x-correlation-id` is kept (bounded); without one, the request gets its own.
 */
export const CommandMeta = createParamDecorator((_: unknown, context: ExecutionContext): AppendMeta => {
  const request = context.switchToHttp().getRequest<CommandRequest>();
  if (!request.principal) throw new Error('CommandMeta used on a route without BearerGuard');
  const header = request.headers['x-correlation-id'];
  const given = (Array.isArray(header) ? header[0] : header)?.slice(0, 128);
  return { actor: request.principal.id, correlationId: given || randomUUID() };
});
