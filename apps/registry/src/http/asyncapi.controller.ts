import { Controller, Get, Inject } from '@nestjs/common';
import { estateAsyncApi, SERVICE_CONFIG, type CommonConfig } from '@estate/platform';

/** The AsyncAPI document of what the estate publishes, here too because the registry is where events start. Public: shapes, never data. */
@Controller()
export class AsyncApiController {
  constructor(@Inject(SERVICE_CONFIG) private readonly config: CommonConfig) {}

  @Get('asyncapi.json')
  asyncApi(): object {
    return estateAsyncApi(this.config);
  }
}
