import {
  applyDecorators, Injectable, SetMetadata, UseGuards,
  type CanActivate, type CustomDecorator, type ExecutionContext,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Principal } from '@estate/contracts';
import { BearerGuard } from './bearer.guard';
import { httpError } from './http-errors';

const REQUIRED_SCOPES = 'estate:required-scopes';

/** What a route demands: any one of `scopes`, and the words a refused caller reads. */
export interface ScopeRequirement {
  scopes: readonly string[];
  refusal: string;
}

/** Runs after BearerGuard: a caller without any of the route's scopes is refused before its body is read. */
@Injectable()
export class ScopeGuard implements CanActivate {
  constructor(private readonly reflector: Reflector) {}

  canActivate(context: ExecutionContext): boolean {
    const required = this.reflector.getAllAndOverride<ScopeRequirement | undefined>(REQUIRED_SCOPES, [context.getHandler(), context.getClass()]);
    if (!required) return true;
    const principal = context.switchToHttp().getRequest<{ principal?: Principal }>().principal;
    if (principal && principal.scopes.some((scope) => required.scopes.includes(scope))) return true;
    throw httpError(403, 'FORBIDDEN', required.refusal);
  }
}

/**
 * The one place a route says who may call it: a valid bearer token holding any one of `scopes`.
 * `refusal` is the 403 message; by default it names the first scope.
 */
export function RequireScope(scopes: string | readonly string[], refusal?: string): MethodDecorator & ClassDecorator {
  const list = typeof scopes === 'string' ? [scopes] : scopes;
  const requirement: ScopeRequirement = { scopes: list, refusal: refusal ?? `this needs the ${list[0]} scope` };
  const metadata: CustomDecorator<string> = SetMetadata(REQUIRED_SCOPES, requirement);
  return applyDecorators(metadata, UseGuards(BearerGuard, ScopeGuard));
}

/** A route any valid bearer token may call; what it answers is then the caller's view. */
export function Authenticated(): MethodDecorator & ClassDecorator {
  return applyDecorators(UseGuards(BearerGuard));
}
