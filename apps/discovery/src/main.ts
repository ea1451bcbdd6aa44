import 'reflect-metadata';
import { runService } from '@estate/platform';
import { loadDiscoveryConfig } from './config';
import { startDiscovery } from './discovery.app';

void runService({ name: 'discovery', load: () => loadDiscoveryConfig(process.env), start: startDiscovery });
