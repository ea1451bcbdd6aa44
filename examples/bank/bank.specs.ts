import type { ToolSpec } from '@estate/contracts';

/**
 * The bank's tools as the estate publishes them: the contract agents see, plus the governance
 * fields (scopes, classification, tenants, owner) that never reach an agent.
 */
export function bankSpecs(server = 'bank'): ToolSpec[] {
  const reference = { type: 'string', pattern: '^PMT-[0-9]+$', description: 'Payment reference, e.g. PMT-771' };
  return [
    {
      name: `${server}.lookup`,
      version: '1.0.0',
      title: 'Look up a payment',
      description: 'Returns the status, amount, currency and counterparty of a payment by its reference. Read-only.',
      inputSchema: { type: 'object', properties: { reference }, required: ['reference'], additionalProperties: false },
      sideEffect: 'read',
      requiredScopes: ['bank:read'],
      dataClassification: 'internal',
      tenants: [],
      owner: 'payments-team',
      upstream: { server, tool: 'lookup' },
    },
    {
      name: `${server}.transfer`,
      version: '1.0.0',
      title: 'Transfer money',
      description: 'Moves an amount in minor units between two accounts and returns a confirmation id.',
      inputSchema: {
        type: 'object',
        properties: {
          from: { type: 'string', minLength: 1 },
          to: { type: 'string', minLength: 1 },
          amount: { type: 'integer', minimum: 1 },
          currency: { enum: ['EUR', 'USD', 'GBP', 'CHF'] },
        },
        required: ['from', 'to', 'amount', 'currency'],
        additionalProperties: false,
      },
      sideEffect: 'write',
      requiredScopes: ['bank:write'],
      dataClassification: 'confidential',
      tenants: [],
      owner: 'payments-team',
      upstream: { server, tool: 'transfer' },
    },
    {
      name: `${server}.release`,
      version: '1.0.0',
      title: 'Release a held payment',
      description: 'Releases a held payment for settlement. Cannot be undone.',
      inputSchema: { type: 'object', properties: { reference }, required: ['reference'], additionalProperties: false },
      sideEffect: 'destructive',
      requiredScopes: ['bank:release'],
      dataClassification: 'confidential',
      tenants: [],
      owner: 'payments-team',
      upstream: { server, tool: 'release' },
    },
  ];
}
