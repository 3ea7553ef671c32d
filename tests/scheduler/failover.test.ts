import { afterAll, beforeAll, expect, it } from "bun:test";
import { connectNatsBus, type Bus, type ConsumerHandle } from "../../core/bus/index.ts";
import type { CheckJobMessage } from "../../schemas/messages/check-messages.ts";
import { phaseOf } from "../../scheduler/grid.ts";
import { createTestDatabase, type TestDatabase } from "../support/db.ts";
import { spawnRole, type RoleProcess } from "../support/processes.ts";
import { dropNatsStreams, insertMonitors, insertOrg, NATS_URL, natsPrefix, until } from "../support/scheduling.ts";

const INTERVAL_MS = 10_000;
const prefix = natsPrefix("fo");
let db: TestDatabase;
let bus: Bus;
let consumer: ConsumerHandle;
const seen: { id: string; monitor: string; due: number; at: number }[] = [];
const procs: RoleProcess[] = [];

beforeAll(async () => {
  db = await createTestDatabase();
  bus = await connectNatsBus({ url: NATS_URL, prefix });
  await bus.ensureTopology({ jobSubjects: ["jobs.region.fo"] });
  consumer = await bus.consumeJobs<CheckJobMessage>("jobs.region.fo", { maxInFlight: 500 }, (d) => {
    seen.push({ id: d.data.id, monitor: d.data.monitor_id, due: d.data.due_at, at: Date.now() });
  });
}, 30_000);
afterAll(async () => {
  await Promise.all(procs.map((p) => p.stop(1000)));
  await consumer.stop();
  await bus.close();
  await dropNatsStreams([prefix]);
  await db.drop();
}, 30_000);

const env = () => ({
  DATABASE_URL: db.url,
  NATS_URL,
  NATS_PREFIX: prefix,
  SECRET_KEY: "failover-test-secret-key-0123456789abcdef",
  SCHEDULER_LOCK_RETRY_MS: "1000",
});

it(
  "hands over to the standby within 10 s of the leader's death, with no due check published twice or skipped",
  async () => {
    const org = await insertOrg(db.sql);
    // The region is online for the whole test (a worker seen "in the future").
    await db.sql`insert into region_workers (worker_id, region, version, concurrency, started_at, last_seen_at) values ('w', 'fo', 't', 1, now(), now() + interval '1 hour')`;
    const monitors = await insertMonitors(db.sql, org, Array.from({ length: 40 }, () => ({ interval_seconds: INTERVAL_MS / 1000, regions: ["fo"] })));

    const a = spawnRole("scheduler/main.ts", env());
    procs.push(a);
    await a.waitForLog("schedule running", 15_000);
    const from = Date.now();
    const b = spawnRole("scheduler/main.ts", env());
    procs.push(b);
    await b.waitForLog("standing by: another instance leads", 15_000);
    await Bun.sleep(5000);
    expect(b.lines.some((l) => l.msg === "elected leader")).toBe(false);

    a.proc.kill("SIGKILL");
    const killedAt = Date.now();
    await b.waitForLog("schedule running", 10_000);
    const takeoverMs = Date.now() - killedAt;
    expect(takeoverMs).toBeLessThan(10_000);

    await Bun.sleep(5000);
    // Due checks of the last seconds may still be on their way to the subscriber on a loaded machine.
    const to = Date.now() - 3000;
    await b.stop();
    await Bun.sleep(300);

    // Every grid point of every monitor in [from, to] arrived exactly once.
    const byId = new Map<string, number>();
    for (const s of seen) byId.set(s.id, (byId.get(s.id) ?? 0) + 1);
    expect([...byId.values()].filter((n) => n > 1)).toEqual([]);
    const missing: string[] = [];
    for (const m of monitors) {
      const phase = phaseOf(m, INTERVAL_MS);
      for (let due = phase + Math.ceil((from - phase) / INTERVAL_MS) * INTERVAL_MS; due <= to; due += INTERVAL_MS) {
        if (!byId.has(`${m}.fo.${due}`)) missing.push(`${m}@${new Date(due).toISOString()}`);
      }
    }
    expect(missing).toEqual([]);
    // The checks due while no leader ran went out late, within the takeover time; the rest on time.
    const late = seen.filter((s) => s.due >= from && s.at - s.due > 500);
    expect(late.every((s) => s.due >= killedAt - 1500 && s.at - s.due < takeoverMs + 1000)).toBe(true);
    console.log(`failover: takeover ${takeoverMs} ms, ${seen.filter((s) => s.due >= from && s.due <= to).length} jobs checked, ${late.length} published late by the new leader`);
  },
  { timeout: 45_000 },
);
