import 'reflect-metadata';
import { runService } from '@estate/platform';
import { loadEdgeConfig } from './config';
import { startEdge } from './edge.app';

void runService({ name: 'mcp-edge', env: process.env, load: loadEdgeConfig, needsDatabase: false, start: startEdge });
