import 'reflect-metadata';
import { runService } from '@estate/platform';
import { loadDiscoveryConfig } from './config';
import { startDiscovery } from './discovery.app';

void runService({ name: 'discovery', env: process.env, load: loadDiscoveryConfig, start: startDiscovery });
