/**
 * What the in-memory schedule holds per monitor (#24 item 6): N HTTP monitors as the API stores them (defaults
 * applied), read from PostgreSQL the way the scheduler's sync reads them, held by a started Scheduler. Prints the
 * JavaScript heap after a full GC before and after, per monitor.
 * Usage: bun bench/schedule-memory.ts [--monitors 20000]
 */
import { heapStats } from "bun:jsc";
import { parseArgs } from "node:util";
import { createMemoryBus } from "../core/bus/index.ts";
import { systemClock } from "../core/clock.ts";
import { silentLogger } from "../core/log.ts";
import { allSchedulable } from "../db/queries/scheduler.ts";
import { validateCheckConfig } from "../domain/monitors/validate-config.ts";
import { MaintenanceGate } from "../scheduler/maintenance-gate.ts";
import { Scheduler } from "../scheduler/scheduler.ts";
import { createTestDatabase } from "../tests/support/db.ts";
import { insertMonitors, insertOrg } from "../tests/support/scheduling.ts";

const { values } = parseArgs({ options: { monitors: { type: "string", default: "20000" } } });
const N = Number(values.monitors);
const db = await createTestDatabase();
try {
  const orgs = await Promise.all(Array.from({ length: 10 }, () => insertOrg(db.sql)));
  for (let o = 0; o < orgs.length; o++) {
    const specs = Array.from({ length: N / orgs.length }, (_, i) => ({
      interval_seconds: 20,
      config: validateCheckConfig("http", { url: `http://127.0.0.1:8080/m/${o}/${i}` }),
      tags: i % 4 === 0 ? ["prod"] : [],
    }));
    await insertMonitors(db.sql, orgs[o]!, specs);
  }
  const heap = () => {
    Bun.gc(true);
    return heapStats().heapSize;
  };
  const bus = createMemoryBus();
  const scheduler = new Scheduler({
    bus,
    clock: systemClock,
    log: silentLogger,
    placement: { regionOnline: () => true, runnerOnline: () => true },
    maintenance: new MaintenanceGate(),
    isLeader: () => false,
    backfillMs: 0,
  });
  const before = heap();
  for await (const page of allSchedulable(db.sql)) for (const row of page) scheduler.upsert(row);
  scheduler.start(null);
  const after = heap();
  console.log(`schedule of ${scheduler.size} monitors: heap ${(before / 1048576).toFixed(1)} → ${(after / 1048576).toFixed(1)} MB, ${((after - before) / scheduler.size).toFixed(0)} bytes per monitor`);
  scheduler.stop();
  await bus.close();
} finally {
  await db.drop();
}
