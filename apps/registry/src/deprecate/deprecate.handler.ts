import { Injectable } from '@nestjs/common';
import { ToolTransitionHandler } from '../command/tool-transition.handler';
import type { DeprecateToolVersion } from './deprecate.command';

/** Deprecates an active version, optionally naming its sunset date and replacement. */
@Injectable()
export class DeprecateHandler extends ToolTransitionHandler<DeprecateToolVersion> {}
