import { afterAll, afterEach, beforeAll, describe, expect, it } from "bun:test";
import { createMemoryBus, type Bus, type JobSubject, type ResultSubject } from "../core/bus/index.ts";
import { ManualClock } from "../core/clock.ts";
import type { CheckJobMessage, CheckResultMessage } from "../schemas/messages/check-messages.ts";
import { silentLogger } from "../core/log.ts";
import { readWatermark } from "../db/queries/scheduler.ts";
import { createTestDatabase, type TestDatabase } from "../tests/support/db.ts";
import { insertMonitors, insertOrg, markRegionOnline, until } from "../tests/support/scheduling.ts";
import { BEATS_STALL_GRACE_SECONDS, REGION_ONLINE_TTL_SECONDS } from "../domain/regions/catalog.ts";
import { BlindTime } from "../core/process/blind-time.ts";
import { newId } from "../core/ids.ts";
import { runnerSubject } from "../schemas/messages/check-messages.ts";
import { startScheduler, type SchedulerHandle } from "./start.ts";

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
}, 30_000);
afterAll(async () => {
  await db.drop();
}, 30_000);

let running: SchedulerHandle[] = [];
afterEach(async () => {
  await Promise.all(running.map((s) => s.stop()));
  running = [];
});

/**
 * A scheduler on the test database with a manual clock and a bus that records what it is given. `watermarkAgoMs`: the
 * last leader handled the due times up to that long ago (a restart's outage); `blind`: the process's blind time.
 */
async function scheduler(o: { watermarkAgoMs?: number; blind?: BlindTime } = {}) {
  const clock = new ManualClock(Date.now());
  // Each test starts its own timeline: forget the previous test's watermark.
  const watermark = o.watermarkAgoMs === undefined ? null : new Date(clock.now() - o.watermarkAgoMs);
  await db.sql`update scheduler_state set published_through = ${watermark}`;
  const jobs: CheckJobMessage[] = [];
  const results: CheckResultMessage[] = [];
  const real = createMemoryBus();
  await real.ensureTopology();
  const bus: Bus = Object.create(real);
  const subjects = new Map<string, string>();
  bus.publishJob = async (s: JobSubject, j) => (jobs.push(j as unknown as CheckJobMessage), subjects.set((j as unknown as CheckJobMessage).monitor_id, s), real.publishJob(s, j));
  bus.publishResult = async (s: ResultSubject, r) => (results.push(r as unknown as CheckResultMessage), real.publishResult(s, r));
  const handle = await startScheduler({ sql: db.sql, databaseUrl: db.url, bus, log: silentLogger, clock, lockRetryMs: 200, blind: o.blind });
  running.push(handle);
  await until(() => handle.isLeader(), 5000, "leadership");
  return { handle, clock, jobs, results, subjects };
}

describe("scheduler with the database", () => {
  it("schedules active monitors of every type but heartbeat, and none that are paused or suspended", async () => {
    const org = await insertOrg(db.sql);
    await markRegionOnline(db.sql, "local");
    const [http, , , , browser] = await insertMonitors(db.sql, org, [
      { type: "http" },
      { type: "http", paused: true },
      { type: "http", suspended: true },
      { type: "heartbeat", regions: [] },
      { type: "browser_lite", config: { url: "https://example.test/" } },
    ]);
    const s = await scheduler();
    await until(() => s.handle.size() >= 2);
    await s.clock.advance(30_000);
    const ours = new Set(s.jobs.filter((j) => j.org_id === org).map((j) => j.monitor_id));
    expect(ours).toEqual(new Set([http!]));
    // No worker in the region has a browser: the browser monitor's checks are a gap, not downtime.
    const gap = s.results.find((r) => r.monitor_id === browser);
    expect(gap).toMatchObject({ status: "unavailable", error: "no worker with a chromium browser online in region local" });
  });

  it("places browser monitors only where a worker or runner offers their engine, on the engine's queue", async () => {
    const org = await insertOrg(db.sql);
    await markRegionOnline(db.sql, "local");
    await db.sql`insert into region_workers (worker_id, region, version, concurrency, browsers, started_at, last_seen_at)
      values ('test-browser-eu', 'eu-browsers', 'test', 1, '{chromium}', now(), now()) on conflict (worker_id) do update set last_seen_at = now()`;
    const [chromium, firefox] = await insertMonitors(db.sql, org, [
      { type: "browser_lite", config: { url: "https://example.test/" }, regions: ["eu-browsers"] },
      { type: "browser_flow", config: { url: "https://example.test/", engine: "firefox", steps: [{ action: "click", selector: "#a" }] }, regions: ["eu-browsers"] },
    ]);
    const s = await scheduler();
    await until(() => s.handle.size() >= 2);
    await s.clock.advance(60_000);
    expect(s.jobs.filter((j) => j.monitor_id === chromium).length).toBeGreaterThan(0);
    expect(s.subjects.get(chromium!)).toBe("jobs.region.eu-browsers.chromium");
    expect(s.jobs.some((j) => j.monitor_id === firefox)).toBe(false);
    expect(s.results.find((r) => r.monitor_id === firefox)).toMatchObject({ status: "unavailable", error: "no worker with a firefox browser online in region eu-browsers" });
  });

  it("follows pauses, deletions and edits made in the database within a moment", async () => {
    const org = await insertOrg(db.sql);
    await markRegionOnline(db.sql, "local");
    const [paused, deleted, edited] = await insertMonitors(db.sql, org, [{}, {}, {}]);
    const s = await scheduler();
    const mine = () => s.jobs.filter((j) => j.org_id === org);
    await until(() => s.handle.size() >= 3);
    await db.sql`update monitors set paused = true, updated_at = now() where id = ${paused!}`;
    await db.sql`delete from monitors where id = ${deleted!}`;
    await db.sql`update monitors set config = ${db.sql.json({ url: "http://127.0.0.1:10/" })}, updated_at = now() where id = ${edited!}`;
    await until(async () => {
      await s.clock.advance(30_000);
      return mine().some((j) => j.monitor_id === edited && (j.config as { url: string }).url.endsWith(":10/"));
    });
    const before = mine().length;
    await s.clock.advance(60_000);
    const later = mine().slice(before);
    expect(later.length).toBe(2);
    expect(later.every((j) => j.monitor_id === edited)).toBe(true);
  });

  it("records unavailable for a region with no worker online, once its start-up grace is over", async () => {
    const org = await insertOrg(db.sql);
    const [m] = await insertMonitors(db.sql, org, [{ regions: ["nowhere-1"], interval_seconds: 10 }]);
    const s = await scheduler();
    const started = s.clock.now();
    await until(() => s.handle.size() >= 1);
    await s.clock.advance(40_000);
    // Due within the grace (a region's worker may not have been seen yet): published, for a worker coming online
    // to run, or for the leader's sweep to record unavailable once they expire unclaimed.
    const jobs = s.jobs.filter((j) => j.monitor_id === m);
    expect(jobs.length).toBeGreaterThan(0);
    expect(jobs.every((j) => j.due_at < started + REGION_ONLINE_TTL_SECONDS * 1000)).toBe(true);
    const gaps = s.results.filter((x) => x.monitor_id === m);
    expect(gaps.length).toBeGreaterThan(0);
    expect(gaps[0]).toMatchObject({ status: "unavailable", error: "no worker online in region nowhere-1", location: "nowhere-1", location_type: "region" });
    expect(gaps.every((r) => r.scheduled_at >= started + REGION_ONLINE_TTL_SECONDS * 1000)).toBe(true);
  });

  it("runs the first checks of a region whose worker comes online a moment after the scheduler starts", async () => {
    // The all-in-one starts its scheduler and its workers together; a worker is online once ingest has stored its
    // first beat. Checks due before the scheduler saw it were recorded unavailable (a gap after every restart).
    const org = await insertOrg(db.sql);
    const [m] = await insertMonitors(db.sql, org, [{ regions: ["starting-1"], interval_seconds: 10 }]);
    const s = await scheduler();
    await until(() => s.handle.size() >= 1);
    await s.clock.advance(1_000);
    await db.sql`insert into region_workers (worker_id, region, version, concurrency, browsers, started_at, last_seen_at)
      values ('test-starting-1', 'starting-1', 'test', 4, '{}', now(), now()) on conflict (worker_id) do update set last_seen_at = now()`;
    await s.clock.advance(9_000);
    expect(s.jobs.filter((j) => j.monitor_id === m).length).toBeGreaterThanOrEqual(1);
    // Seen online at the scheduler's next look (every 2 s): past the grace its checks still go to the worker.
    await Bun.sleep(2_500);
    await s.clock.advance(30_000);
    expect(s.jobs.filter((j) => j.monitor_id === m).length).toBeGreaterThanOrEqual(4);
    expect(s.results.filter((r) => r.monitor_id === m)).toEqual([]);
  });

  it("gives no grace to a region seen online that goes away: its checks are recorded unavailable at once", async () => {
    const org = await insertOrg(db.sql);
    const [m] = await insertMonitors(db.sql, org, [{ regions: ["leaving-1"], interval_seconds: 10 }]);
    await db.sql`insert into region_workers (worker_id, region, version, concurrency, browsers, started_at, last_seen_at)
      values ('test-leaving-1', 'leaving-1', 'test', 4, '{}', now(), now()) on conflict (worker_id) do update set last_seen_at = now()`;
    const s = await scheduler();
    await until(() => s.handle.size() >= 1);
    await db.sql`update region_workers set last_seen_at = now() - interval '1 hour' where worker_id = 'test-leaving-1'`;
    await Bun.sleep(2_500); // the scheduler's next look (every 2 s) finds it gone
    await s.clock.advance(10_000);
    expect(s.results.filter((r) => r.monitor_id === m).length).toBeGreaterThan(0);
    expect(s.results.find((r) => r.monitor_id === m)).toMatchObject({ status: "unavailable", error: "no worker online in region leaving-1" });
  });

  it("keeps a region online while every worker's beats stall at once (their path to the database is down), for a bounded time", async () => {
    // The fault test's NATS outage: no beat reached ingest for 12 s, every region's newest beat grew older than the
    // 15 s window together, and once NATS was back the scheduler recorded its due checks "no worker online" for the
    // seconds until the next beats were stored, while the workers were there to run them.
    const org = await insertOrg(db.sql);
    const [m] = await insertMonitors(db.sql, org, [{ regions: ["stalled-1"], interval_seconds: 10 }]);
    await markRegionOnline(db.sql, "stalled-1");
    const s = await scheduler();
    await until(() => s.handle.size() >= 1);
    const stallFor = async (seconds: number) => {
      await db.sql`update region_workers set last_seen_at = now() - make_interval(secs => ${seconds})`;
      await Bun.sleep(2_500); // the scheduler's next look (every 2 s)
      await s.clock.advance(10_000);
    };
    try {
      await stallFor(REGION_ONLINE_TTL_SECONDS + 15);
      expect(s.results.filter((r) => r.monitor_id === m)).toEqual([]);
      expect(s.jobs.filter((j) => j.monitor_id === m).length).toBeGreaterThan(0);
      // One region silent while another beats: its workers are gone, not the path.
      await markRegionOnline(db.sql, "beating-1");
      await Bun.sleep(2_500);
      await s.clock.advance(10_000);
      expect(s.results.find((r) => r.monitor_id === m)).toMatchObject({ status: "unavailable", error: "no worker online in region stalled-1" });
      // Every beat silent for longer than the stall the scheduler waits out: no worker is taken to be anywhere.
      const before = s.results.length;
      await stallFor(REGION_ONLINE_TTL_SECONDS + BEATS_STALL_GRACE_SECONDS + 5);
      expect(s.results.slice(before).find((r) => r.monitor_id === m)).toMatchObject({ status: "unavailable", error: "no worker online in region stalled-1" });
    } finally {
      await db.sql`update region_workers set last_seen_at = now()`;
    }
  }, 30_000);

  it("replays a runner's due checks of an all-in-one outage with their life counted from the restart, and a leader's gap as it was", async () => {
    const org = await insertOrg(db.sql);
    // Heartbeats every 5 s (offline after 15 s of silence); the last came 25 s ago, when the service stopped.
    const runner = newId("run");
    await db.sql`insert into runners (id, org_id, name, token_hash, heartbeat_interval_ms, concurrency, last_seen_at)
      values (${runner}, ${org}, 'rack', ${crypto.getRandomValues(new Uint8Array(32))}, 5000, 10, now() - interval '25 seconds')`;
    const [m] = await insertMonitors(db.sql, org, [{ regions: [], runner_ids: [runner], interval_seconds: 10 }]);
    // The all-in-one: nothing before its start could be heard. It stopped 25 s ago, handing its watermark over.
    const s = await scheduler({ watermarkAgoMs: 25_000, blind: new BlindTime({ blindBeforeStart: true }) });
    const started = s.clock.now();
    await until(() => s.handle.size() >= 1);
    await s.clock.advance(1);
    await until(() => s.jobs.some((j) => j.monitor_id === m), 5000, "the replay");
    const replayed = s.jobs.filter((j) => j.monitor_id === m && j.due_at <= started);
    expect(replayed.length).toBeGreaterThanOrEqual(2);
    // Jobs on its queue, not "runner offline", each with a whole life (10 s) to come and take it after the restart.
    expect(s.subjects.get(m!)).toBe(runnerSubject(runner));
    expect(s.results.filter((r) => r.monitor_id === m)).toEqual([]);
    for (const j of replayed) expect(j.expires_at).toBeGreaterThanOrEqual(started + 10_000 - 1_000);
    await running.pop()!.stop();

    // A leader's takeover in the scaled mode, the runner heard all along: the replayed gap stays a gap (as a region's).
    await db.sql`update runners set last_seen_at = now() where id = ${runner}`;
    const t = await scheduler({ watermarkAgoMs: 25_000 });
    const takeover = t.clock.now();
    await until(() => t.handle.size() >= 1);
    await t.clock.advance(1);
    await until(() => t.jobs.some((j) => j.monitor_id === m), 5000, "the replay");
    const expired = t.jobs.filter((j) => j.monitor_id === m && j.due_at < takeover - 10_000);
    expect(expired.length).toBeGreaterThanOrEqual(1);
    for (const j of expired) expect(j.expires_at).toBe(j.due_at + 10_000);
  });

  it("stops scheduling monitors while a maintenance window that pauses them is active", async () => {
    const org = await insertOrg(db.sql);
    await markRegionOnline(db.sql, "local");
    const [covered, free] = await insertMonitors(db.sql, org, [{ tags: ["db"] }, { tags: ["web"] }]);
    const s = await scheduler();
    await until(() => s.handle.size() >= 2);
    const now = s.clock.now();
    await db.sql`
      insert into maintenance_windows (id, org_id, name, starts_at, ends_at, tags, pause_monitors)
      values ('mw_x', ${org}, 'db upgrade', ${new Date(now - 1000)}, ${new Date(now + 90_000)}, '{db}', true)`;
    await Bun.sleep(300);
    await s.clock.advance(90_000);
    const count = (id: string) => s.jobs.filter((j) => j.monitor_id === id).length;
    expect(count(free!)).toBe(3);
    expect(count(covered!)).toBe(0);
    await s.clock.advance(30_000);
    expect(count(covered!)).toBe(1);
  });

  it("persists how far it has published, for the next leader to backfill from", async () => {
    const s = await scheduler();
    await s.clock.advance(5000);
    await until(async () => ((await readWatermark(db.sql)) ?? 0) >= s.clock.now() - 1, 3000, "watermark");
  });
});
