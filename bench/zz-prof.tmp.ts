import fc from 'fast-check';
import { classifySchemaChange } from '../libs/contracts/src/classifier';
import { MUTATIONS, mutate, objectSchemaArb } from '../libs/contracts/src/classifier/schema-mutation.fixture';
const cases = fc.sample(fc.tuple(objectSchemaArb, fc.constantFrom(...MUTATIONS), fc.nat(30)), { numRuns: 1000, seed: 7 });
const t0 = process.hrtime.bigint(); let majors = 0, w = 0;
const slow: Array<[number, string]> = [];
for (const [s, m, p] of cases) { const a = mutate(s, m, p); if (!a) continue; const t = process.hrtime.bigint(); const r = classifySchemaChange(s, a); const dt = Number(process.hrtime.bigint() - t) / 1e6; slow.push([dt, m + ' ' + JSON.stringify(s) ]); if (r.bump === 'major') { majors++; if (r.witness !== undefined) w++; } }
console.log('total ms', Number(process.hrtime.bigint() - t0) / 1e6, 'majors', majors, 'witness', w);
slow.sort((a, b) => b[0] - a[0]); console.log(slow.slice(0, 5));
