import { Catch, type RpcExceptionFilter } from '@nestjs/common';
import { throwError, type Observable } from 'rxjs';

/**
 * Nest's default RPC filter replaces any error with "Internal server error". The bus transport
 * needs the original: a value PostgreSQL refuses is dead-lettered, an outage is retried. Consumer
 * controllers carry this filter so the handler's error reaches the transport unchanged.
 */
@Catch()
export class KeepBusErrors implements RpcExceptionFilter<unknown> {
  catch(exception: unknown): Observable<never> {
    return throwError(() => exception);
  }
}
