import {
  createParamDecorator, HttpException, HttpStatus, Inject, Injectable,
  type CanActivate, type ExecutionContext,
} from '@nestjs/common';
import type { Principal } from '@estate/contracts';
import type { PrincipalResolver } from '../principal.auth';

export const PRINCIPAL_RESOLVER = Symbol('PrincipalResolver');

interface WithPrincipal {
  headers: Record<string, string | string[] | undefined>;
  principal?: Principal;
}

/** Every admin and query surface needs a principal; a missing or bad token is a bare 401. */
@Injectable()
export class BearerGuard implements CanActivate {
  constructor(@Inject(PRINCIPAL_RESOLVER) private readonly resolver: PrincipalResolver) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<WithPrincipal>();
    const header = request.headers.authorization;
    const result = await this.resolver.resolve(Array.isArray(header) ? header[0] : header);
    if (!result.ok) {
      const response = context.switchToHttp().getResponse<{ setHeader(n: string, v: string): void }>();
      response.setHeader('WWW-Authenticate', `Bearer realm="estate"${result.reason === 'invalid' ? ', error="invalid_token"' : ''}`);
      throw new HttpException({ error: 'UNAUTHORIZED', message: 'a valid bearer token is required' }, HttpStatus.UNAUTHORIZED);
    }
    request.principal = result.principal;
    return true;
  }
}

export const CurrentPrincipal = createParamDecorator((_: unknown, context: ExecutionContext): Principal => {
  const principal = context.switchToHttp().getRequest<WithPrincipal>().principal;
  if (!principal) throw new Error('CurrentPrincipal used on a route without BearerGuard');
  return principal;
});
