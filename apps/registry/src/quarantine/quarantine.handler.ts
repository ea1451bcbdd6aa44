import { Injectable } from '@nestjs/common';
import { ToolTransitionHandler } from '../command/tool-transition.handler';
import type { QuarantineToolVersion } from './quarantine.command';

/** Hides a version everywhere at once (an edge saw its upstream drift); quarantining twice changes nothing. */
@Injectable()
export class QuarantineHandler extends ToolTransitionHandler<QuarantineToolVersion> {}
