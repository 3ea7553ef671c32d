/**
 * The whole alert engine against its reference model (alerting/runtime/engine.model.test.ts,
 * which runs 500): random traces on a real PostgreSQL (TEST_DATABASE_URL), each worker with
 * its own database. Prints the trace count, failures (with seed and trace) and the run time.
 * Usage: bun bench/alerting-model.ts [traces=10000] [workers=2] [seed]
 */
import fc from "fast-check";
import { referenceRun } from "../alerting/testing/engine-reference.ts";
import { arbTrace, canon, engineBench, engineRun } from "../alerting/testing/engine-trace.ts";
import { createMemoryBus } from "../core/bus/index.ts";
import { silentLogger } from "../core/log.ts";
import { createTestDatabase } from "../tests/support/db.ts";

const TRACES = Number(process.argv[2] ?? 10_000);
const WORKERS = Math.max(1, Number(process.argv[3] ?? 2));
const SEED = Number(process.argv[4] ?? Date.now() % 2 ** 31);

const traces = fc.sample(arbTrace, { numRuns: TRACES, seed: SEED });
const started = performance.now();
let next = 0;
let done = 0;
const failures: { index: number; diff: string }[] = [];
const kinds: Record<string, number> = {};

async function worker(): Promise<void> {
  const db = await createTestDatabase();
  const bus = createMemoryBus({ log: silentLogger });
  try {
    const bench = await engineBench(db.sql, bus);
    for (let i = next++; i < traces.length; i = next++) {
      const trace = traces[i]!;
      const engine = canon(await engineRun(bench, trace));
      const model = canon(referenceRun(trace));
      for (const line of model) {
        const kind = line.split(" ").pop()!.split("#")[0]!;
        kinds[kind] = (kinds[kind] ?? 0) + 1;
      }
      if (JSON.stringify(engine) !== JSON.stringify(model)) {
        const missing = model.filter((x) => !engine.includes(x));
        const extra = engine.filter((x) => !model.includes(x));
        failures.push({ index: i, diff: `missing ${JSON.stringify(missing)} extra ${JSON.stringify(extra)} trace ${JSON.stringify(trace)}` });
      }
      if (++done % 1000 === 0) console.log(`${done} traces, ${failures.length} failures, ${((performance.now() - started) / 1000).toFixed(0)} s`);
    }
  } finally {
    await bus.close();
    await db.drop();
  }
}

await Promise.all(Array.from({ length: WORKERS }, worker));
const seconds = (performance.now() - started) / 1000;
for (const f of failures.slice(0, 5)) console.log(`FAILED trace #${f.index} (seed ${SEED}): ${f.diff}`);
console.log(`alerting model bench: ${done} traces, ${failures.length} failures, ${seconds.toFixed(1)} s (${(done / seconds).toFixed(1)} traces/s, ${WORKERS} workers), seed ${SEED}`);
console.log(`notifications by kind: ${JSON.stringify(kinds)}`);
process.exit(failures.length > 0 ? 1 : 0);
