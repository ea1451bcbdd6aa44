import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { classifySchemaChange } from '../libs/contracts/src/classifier';
import { isFlat } from '../libs/contracts/src/pattern.engine';
import { validate } from '../libs/contracts/src/schema.validator';

/** One result table: a name and rows of named figures. */
export interface BenchTable {
  name: string;
  rows: Array<Record<string, string | number>>;
}

const ROUNDS = 7;
const ITERATIONS = 20_000;
const WARM_UP = 5_000;
const CLASSIFY_SAMPLES = 60;

const PAYMENT_SCHEMA = {
  type: 'object',
  properties: {
    reference: { type: 'string', pattern: '^PAY-[0-9]{8}$' },
    amount: { type: 'number', exclusiveMinimum: 0, maximum: 1_000_000, multipleOf: 0.01 },
    currency: { type: 'string', enum: ['GBP', 'EUR', 'USD', 'CHF'] },
    valueDate: { type: 'string', format: 'date' },
    payer: { $ref: '#/$defs/party' },
    payee: { $ref: '#/$defs/party' },
    legs: { type: 'array', minItems: 1, maxItems: 10, items: { type: 'object', properties: { account: { type: 'string' }, amount: { type: 'number' } }, required: ['account', 'amount'] } },
    memo: { type: 'string', maxLength: 140 },
  },
  required: ['reference', 'amount', 'currency', 'payer', 'payee'],
  additionalProperties: false,
  $defs: {
    party: { type: 'object', properties: { name: { type: 'string', minLength: 1 }, iban: { type: 'string', pattern: '^[A-Z]{2}[0-9]{2}[A-Z0-9]{10,30}$' } }, required: ['name', 'iban'] },
  },
};
const VALID_PAYMENT = {
  reference: 'PAY-00001234', amount: 1250.5, currency: 'GBP', valueDate: '2025-03-31',
  payer: { name: 'Acme Ltd', iban: 'GB29NWBK60161331926819' }, payee: { name: 'Widget plc', iban: 'DE89370400440532013000' },
  legs: [{ account: 'ops', amount: 1250.5 }], memo: 'invoice 77',
};
const INVALID_PAYMENT = { ...VALID_PAYMENT, reference: 'PAY-12', amount: -3, currency: 'JPY', payer: { name: '' }, extra: true };

function opsPerSecond(run: () => unknown): number {
  const start = process.hrtime.bigint();
  for (let i = 0; i < ITERATIONS; i += 1) run();
  return ITERATIONS / (Number(process.hrtime.bigint() - start) / 1e9);
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

/** Baseline (compiled ajv) and subject (our validate) alternate within each round to share the noise. */
function validationRows(): Array<Record<string, string | number>> {
  const ajv = new Ajv2020({ allErrors: true, strict: false });
  addFormats(ajv);
  const direct = ajv.compile(PAYMENT_SCHEMA);
  const rows: Array<Record<string, string | number>> = [];
  for (const [input, value] of [['valid', VALID_PAYMENT], ['invalid', INVALID_PAYMENT]] as const) {
    for (let i = 0; i < WARM_UP; i += 1) {
      direct(value);
      validate(PAYMENT_SCHEMA, value);
    }
    const baseline: number[] = [];
    const subject: number[] = [];
    for (let round = 0; round < ROUNDS; round += 1) {
      baseline.push(opsPerSecond(() => direct(value)));
      subject.push(opsPerSecond(() => validate(PAYMENT_SCHEMA, value)));
    }
    const ajvOps = median(baseline);
    const ourOps = median(subject);
    rows.push({ input, 'ajv compiled (ops/s)': Math.round(ajvOps), 'validate (ops/s)': Math.round(ourOps), 'validate / ajv': Number((ourOps / ajvOps).toFixed(3)) });
  }
  return rows;
}

/**
 * Patterns V8 could backtrack on run on RE2 (linear time); those it runs in linear time stay on
 * V8 (see pattern.engine.ts). The baseline is ajv with V8's backtracking RegExp.
 */
function patternRows(): Array<Record<string, string | number>> {
  const ajv = new Ajv2020({ allErrors: true, strict: false });
  const rows: Array<Record<string, string | number>> = [];
  for (const [pattern, text] of [['^PAY-[0-9]{8}$', 'PAY-00001234'], ['^[a-z0-9_-]+$', 'a-rather-long_identifier-0123456789'], ['^[a-z]+-[0-9]+$', 'invoice-0123456789']] as const) {
    const schema = { type: 'string', pattern };
    const direct = ajv.compile(schema);
    for (let i = 0; i < WARM_UP; i += 1) {
      direct(text);
      validate(schema, text);
    }
    const baseline: number[] = [];
    const subject: number[] = [];
    for (let round = 0; round < ROUNDS; round += 1) {
      baseline.push(opsPerSecond(() => direct(text)));
      subject.push(opsPerSecond(() => validate(schema, text)));
    }
    const [ajvOps, ourOps] = [median(baseline), median(subject)];
    rows.push({
      pattern: `\`${pattern}\``, engine: isFlat(pattern) ? 'V8 (linear for this pattern)' : 'RE2',
      'ajv + V8 RegExp (ops/s)': Math.round(ajvOps), 'validate (ops/s)': Math.round(ourOps), 'validate / ajv': Number((ourOps / ajvOps).toFixed(3)),
    });
  }
  return rows;
}

function wideSchema(tightened: boolean): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  for (let i = 0; i < 200; i += 1) {
    const bound = tightened && i % 50 === 7 ? 1 : 0;
    properties[`field${i}`] = i % 3 === 0
      ? { type: 'integer', minimum: bound, description: `counter ${i}` }
      : i % 3 === 1 ? { type: 'string', maxLength: 64, pattern: '^[a-z]+$' } : { type: 'string', enum: ['a', 'b', 'c'] };
  }
  return { type: 'object', properties, required: Object.keys(properties).slice(0, 120), additionalProperties: false };
}

function classificationRows(): Array<Record<string, string | number>> {
  const before = wideSchema(false);
  const after = wideSchema(true);
  for (let i = 0; i < 5; i += 1) classifySchemaChange(before, after);
  const times: number[] = [];
  let bump = '';
  for (let i = 0; i < CLASSIFY_SAMPLES; i += 1) {
    const start = process.hrtime.bigint();
    bump = classifySchemaChange(before, after).bump;
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  const sorted = [...times].sort((a, b) => a - b);
  const mean = times.reduce((sum, t) => sum + t, 0) / times.length;
  const round = (n: number) => Number(n.toFixed(3));
  return [{ schema: '200 properties, 4 bounds tightened', bump, samples: CLASSIFY_SAMPLES, 'mean (ms)': round(mean), 'p50 (ms)': round(percentile(sorted, 50)), 'p99 (ms)': round(percentile(sorted, 99)) }];
}

export async function runContractsBench(): Promise<BenchTable[]> {
  return [
    { name: 'contracts: payment schema validation, validate() vs compiled ajv', rows: validationRows() },
    { name: 'contracts: schema-change classification (200 properties)', rows: classificationRows() },
    { name: 'contracts: one string pattern, validate() (linear-time engine) vs ajv with V8 RegExp', rows: patternRows() },
  ];
}

export function toMarkdown(tables: BenchTable[]): string {
  return tables
    .map(({ name, rows }) => {
      const columns = Object.keys(rows[0] ?? {});
      const lines = [`### ${name}`, '', `| ${columns.join(' | ')} |`, `| ${columns.map(() => '---').join(' | ')} |`];
      for (const row of rows) lines.push(`| ${columns.map((c) => String(row[c])).join(' | ')} |`);
      return lines.join('\n');
    })
    .join('\n\n');
}

if (require.main === module) {
  runContractsBench()
    .then((tables) => process.stdout.write(`${toMarkdown(tables)}\n`))
    .catch((error: unknown) => {
      process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
      process.exitCode = 1;
    });
}
