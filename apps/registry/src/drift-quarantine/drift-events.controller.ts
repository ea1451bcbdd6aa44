import { Inject } from '@nestjs/common';
import { EventPattern, Payload } from '@nestjs/microservices';
import { BusConsumer, LOGGER, type BusMessage, type Logger } from '@estate/platform';
import { QuarantineHandler } from '../quarantine/quarantine.handler';
import { readDriftReport } from './drift-report';

/**
 * Quarantines the versions edges report as drifted (`estate.drift`). Quarantining twice records
 * nothing, so a report delivered again, or sent by several edges, is harmless. A report the
 * registry refuses (an unknown tool or version) is logged and passed over: asking again would
 * get the same answer. A store failure throws, and the bus delivers the batch again.
 */
@BusConsumer()
export class DriftEventsController {
  constructor(@Inject(QuarantineHandler) private readonly quarantine: QuarantineHandler, @Inject(LOGGER) private readonly logger: Logger) {}

  @EventPattern('drift')
  async drift(@Payload() messages: BusMessage[]): Promise<void> {
    for (const message of messages) {
      const report = readDriftReport(message.value);
      if (!report.ok) {
        this.logger.warn({ topic: message.topic, offset: message.offset, problem: report.problem }, 'a drift report was passed over');
        continue;
      }
      const outcome = await this.quarantine.execute(report.command, report.meta);
      const { name, version } = report.command;
      if (!outcome.ok) this.logger.warn({ tool: name, version, error: outcome.error }, 'the registry refused a drift quarantine');
      else if (outcome.value) this.logger.warn({ tool: name, version, actor: report.meta.actor, reason: report.command.reason }, 'quarantined a version an edge saw drift');
    }
  }
}
