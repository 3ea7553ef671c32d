/**
 * Model-based test of the whole alert engine: random traces run through the real engine
 * (PostgreSQL timers, evaluation, dispatcher ticks, acknowledgements, rule and monitor
 * services, restarts) and through the reference model; every notification must match.
 * `bun bench/alerting-model.ts` runs 10,000 traces.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import fc from "fast-check";
import { type Bus, createMemoryBus } from "../../core/bus/index.ts";
import { silentLogger } from "../../core/log.ts";
import { createTestDatabase, type TestDatabase } from "../../tests/support/db.ts";
import { referenceRun } from "../testing/engine-reference.ts";
import { canon, type EngineBench, engineBench, engineRun, traceArbitrary } from "../testing/engine-trace.ts";

const RUNS = Number(process.env.ALERTING_MODEL_RUNS ?? 500);
let db: TestDatabase;
let bus: Bus;
let bench: EngineBench;

beforeAll(async () => {
  db = await createTestDatabase();
  bus = createMemoryBus({ log: silentLogger });
  bench = await engineBench(db.sql, bus);
}, 60_000);
afterAll(async () => {
  await bus.close();
  await db.drop();
}, 60_000);

describe("the whole alert engine against the reference model", () => {
  it(`sends exactly the model's notifications (kind, channel, time) on ${RUNS} random traces`, async () => {
    const seed = Number(process.env.ALERTING_MODEL_SEED ?? Date.now() % 2 ** 31);
    const kinds: Record<string, number> = {};
    try {
      await fc.assert(
        fc.asyncProperty(traceArbitrary({ windows: process.env.ALERTING_MODEL_WINDOWS !== "0" }), async (trace) => {
          const engine = canon(await engineRun(bench, trace));
          const model = canon(referenceRun(trace));
          expect(engine).toEqual(model);
          for (const line of model) {
            const kind = line.split(" ").pop()!.split("#")[0]!;
            kinds[kind] = (kinds[kind] ?? 0) + 1;
          }
        }),
        { numRuns: RUNS, seed, endOnFailure: false },
      );
    } catch (err) {
      console.error(`alert engine model test failed with seed ${seed} (rerun with ALERTING_MODEL_SEED=${seed})`);
      throw err;
    }
    console.log(`alert engine model: ${RUNS} traces, seed ${seed}, notifications by kind ${JSON.stringify(kinds)}`);
    for (const kind of ["alert", "escalation", "reminder", "recovery", "acknowledgement"]) expect(kinds[kind] ?? 0).toBeGreaterThan(RUNS / 50);
  }, 600_000);
});
