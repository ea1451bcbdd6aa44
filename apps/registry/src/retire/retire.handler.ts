import { Injectable } from '@nestjs/common';
import { ToolTransitionHandler } from '../command/tool-transition.handler';
import type { RetireToolVersion } from './retire.command';

/** Retires a version: it leaves every catalog and can no longer be called. */
@Injectable()
export class RetireHandler extends ToolTransitionHandler<RetireToolVersion> {}
