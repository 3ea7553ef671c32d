/**
 * The scheduler's reconcile (scheduler/sync.ts) at N monitors, on the test PostgreSQL (a database of its own,
 * dropped after): the schedule loaded as the leader loads it, then R reconciles that find nothing changed, R that
 * find one monitor edited and R one deleted without a notification. Prints per kind the median wall time, the main thread's CPU time
 * (this process; the reconcile runs on the leader's main thread) and the longest stall of the event loop during it
 * (what delays the checks due meanwhile).
 * Usage: bun bench/reconcile.ts [monitors=100000] [runs=7]
 */
import { createTestDatabase } from "../tests/support/db.ts";
import { insertMonitors, insertOrg, syncedScheduler, unnoticed } from "../tests/support/scheduling.ts";

const MONITORS = Number(process.argv[2] ?? 100_000);
const RUNS = Number(process.argv[3] ?? 7);

/** Runs fn while a 1 ms timer measures the event loop; returns wall ms, this process's CPU ms, the longest gap. */
async function measured(fn: () => Promise<unknown>): Promise<{ wall: number; cpu: number; stall: number }> {
  let last = performance.now();
  let stall = 0;
  const timer = setInterval(() => {
    const t = performance.now();
    stall = Math.max(stall, t - last);
    last = t;
  }, 1);
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await fn();
  const wall = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  clearInterval(timer);
  stall = Math.max(stall, performance.now() - last);
  return { wall, cpu: (cpu.user + cpu.system) / 1000, stall };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const db = await createTestDatabase();
try {
  const org = await insertOrg(db.sql);
  const ids: string[] = [];
  for (let i = 0; i < MONITORS; i += 5000) ids.push(...(await insertMonitors(db.sql, org, Array.from({ length: Math.min(5000, MONITORS - i) }, () => ({})))));
  await db.sql`update monitors set updated_at = now() - (random() * interval '30 days')`;
  await db.sql`vacuum analyze monitors`;
  const { sync } = await syncedScheduler(db.sql);
  for (const [kind, before] of [
    ["nothing changed", async () => {}],
    [
      "one monitor edited unnoticed",
      async () => {
        const id = ids[Math.floor(Math.random() * ids.length)]!;
        await unnoticed(db.sql, (tx) => tx`update monitors set updated_at = updated_at + interval '1 second' where id = ${id}`);
      },
    ],
    [
      "one monitor deleted unnoticed",
      async () => {
        const id = ids.splice(Math.floor(Math.random() * ids.length), 1)[0]!;
        await unnoticed(db.sql, (tx) => tx`delete from monitors where id = ${id}`);
      },
    ],
  ] as const) {
    for (let i = 0; i < 2; i++) await sync.reconcile();
    const runs = [];
    for (let i = 0; i < RUNS; i++) {
      await before();
      runs.push(await measured(() => sync.reconcile()));
    }
    console.log(
      `reconcile, ${MONITORS} monitors, ${kind}: wall ${median(runs.map((r) => r.wall)).toFixed(1)} ms, main thread CPU ${median(runs.map((r) => r.cpu)).toFixed(1)} ms, longest event-loop stall ${median(runs.map((r) => r.stall)).toFixed(1)} ms (medians of ${RUNS})`,
    );
  }
  await sync.stop();
} finally {
  await db.drop();
}
