import 'reflect-metadata';
import { runService } from '@estate/platform';
import { loadRegistryConfig } from './config';
import { startRegistry } from './registry.app';

void runService({ name: 'registry', env: process.env, load: loadRegistryConfig, start: startRegistry });
