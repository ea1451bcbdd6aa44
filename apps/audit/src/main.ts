import 'reflect-metadata';
import { runService } from '@estate/platform';
import { loadAuditConfig } from './config';
import { startAudit } from './audit.app';

void runService({ name: 'audit', env: process.env, load: loadAuditConfig, start: startAudit });
