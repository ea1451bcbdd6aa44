import 'reflect-metadata';
import { runService } from '@estate/platform';
import { loadRegistryConfig } from './config';
import { startRegistry } from './registry.app';

void runService({ name: 'registry', load: () => loadRegistryConfig(process.env), start: startRegistry });
