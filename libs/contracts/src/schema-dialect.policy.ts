import type { ContractIssue } from './contract.types';
import { isRecord } from './json-path.util';

/** JSON Schema as MCP carries it: an object, or `true` / `false`. */
export type JsonSchema = Record<string, unknown> | boolean;

export type SchemaDialect = '2020-12' | 'draft-07';

export const DRAFT_2020_12_URI = 'https://json-schema.org/draft/2020-12/schema';
export const DRAFT_07_URI = 'http://json-schema.org/draft-07/schema#';

function withoutFragment(uri: string): string {
  return uri.endsWith('#') ? uri.slice(0, -1) : uri;
}

/**
 * The dialect a schema asks for: none declared means 2020-12 (as MCP says), draft-07 is
 * honoured when declared, and anything else is `undefined` (refused).
 */
export function schemaDialectOf(schema: JsonSchema): SchemaDialect | undefined {
  if (!isRecord(schema) || schema.$schema === undefined) return '2020-12';
  const declared = schema.$schema;
  if (typeof declared !== 'string') return undefined;
  const uri = withoutFragment(declared);
  if (uri === withoutFragment(DRAFT_2020_12_URI)) return '2020-12';
  if (uri === withoutFragment(DRAFT_07_URI)) return 'draft-07';
  return undefined;
}

/** `null` when the dialect is accepted; otherwise the issue to report at `$.$schema`. */
export function checkSchemaDialect(schema: JsonSchema): ContractIssue | null {
  if (schemaDialectOf(schema) !== undefined) return null;
  const declared = isRecord(schema) ? JSON.stringify(schema.$schema) : 'unknown';
  return {
    path: '$.$schema',
    code: 'unsupported_dialect',
    message:
      `schema dialect ${declared} is not supported; omit $schema (2020-12) ` +
      `or declare ${DRAFT_07_URI}`,
  };
}
