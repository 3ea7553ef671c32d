import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { runnerSubject } from "../../schemas/messages/check-messages.ts";
import { silentLogger } from "../../core/log.ts";
import { BEFORE_ANYTHING } from "../../core/process/blind-time.ts";
import { sweepStaleRunnerQueues } from "../../domain/runners/queue.ts";
import { collectResults, orgWithRunner, publishHttpJob, startTlsApi, type TlsApi } from "./support.ts";

let api: TlsApi;
beforeAll(async () => {
  api = await startTlsApi({ jobAckWaitMs: 1000 });
});
afterAll(() => api.stop());

/** A runner whose last heartbeat was `agoSeconds` ago, reporting a 5 s interval (offline after 15 s). */
async function runnerSeen(agoSeconds: number, extra: { suspended?: boolean } = {}) {
  const { org, runner } = await orgWithRunner(api);
  await api.db.sql`
    update runners set last_seen_at = now() - make_interval(secs => ${agoSeconds}), heartbeat_interval_ms = 5000, suspended = ${extra.suspended ?? false}
    where id = ${runner.id}`;
  return { org, runner };
}

describe("stale jobs of runners (the scheduler leader's sweep)", () => {
  it("leaves an online runner's queue alone", async () => {
    const { org, runner } = await runnerSeen(1);
    await publishHttpJob(api.bus, org.org_id, runner.id, "mon_on", "http://127.0.0.1:1/");
    await sweepStaleRunnerQueues(api.db.sql, api.bus, silentLogger);
    expect(await api.bus.pendingJobs(runnerSubject(runner.id))).toBe(1);
  });

  it("records the jobs of a runner that missed three heartbeats as unavailable (monitoring_unavailable), including a claim that came back", async () => {
    const { org, runner } = await runnerSeen(16);
    const results = await collectResults(api.bus, org.org_id);
    const waiting = await publishHttpJob(api.bus, org.org_id, runner.id, "mon_off", "http://127.0.0.1:1/");
    const claimedJob = await publishHttpJob(api.bus, org.org_id, runner.id, "mon_off2", "http://127.0.0.1:1/");
    // The runner claimed one and died: inside its ack deadline the claim stays with it...
    expect(await api.bus.fetchJobs(runnerSubject(runner.id), 1, 1000)).toHaveLength(1);
    expect(await sweepStaleRunnerQueues(api.db.sql, api.bus, silentLogger)).toBe(1);
    expect(await api.bus.pendingJobs(runnerSubject(runner.id))).toBe(1);
    // ...and once the deadline passes it is back on the queue, and the next sweep records it too.
    await Bun.sleep(1200);
    expect(await sweepStaleRunnerQueues(api.db.sql, api.bus, silentLogger)).toBe(1);
    expect(await api.bus.pendingJobs(runnerSubject(runner.id))).toBe(0);
    for (const job of [waiting, claimedJob]) {
      const r = await results.waitFor((x) => x.id === job.id, 5000);
      expect(r).toMatchObject({ status: "unavailable", location: runner.id, location_type: "runner", monitor_id: job.monitor_id, scheduled_at: job.due_at });
      expect(r.error).toContain("runner offline");
    }
    await results.stop();
  });

  it("keeps the queue of a runner silent only while the sweeping process could not see (its start, failed sweeps)", async () => {
    // Heartbeats every 5 s: offline after 15 s of silence. Its last one came 30 s ago, when the database went down.
    const { org, runner } = await runnerSeen(30);
    await publishHttpJob(api.bus, org.org_id, runner.id, "mon_blind", "http://127.0.0.1:1/");
    // The leader started 10 s ago: it has seen 10 s of silence.
    expect(await sweepStaleRunnerQueues(api.db.sql, api.bus, silentLogger, { gaps: [{ fromAgoS: BEFORE_ANYTHING, toAgoS: 10 }] })).toBe(0);
    // Its sweeps failed from 35 s ago until 10 s ago: 10 s of silence seen.
    expect(await sweepStaleRunnerQueues(api.db.sql, api.bus, silentLogger, { gaps: [{ fromAgoS: 35, toAgoS: 10 }] })).toBe(0);
    expect(await api.bus.pendingJobs(runnerSubject(runner.id))).toBe(1);
    // Until 20 s ago: 20 s seen, more than its window.
    expect(await sweepStaleRunnerQueues(api.db.sql, api.bus, silentLogger, { gaps: [{ fromAgoS: 35, toAgoS: 20 }] })).toBe(1);
    expect(await api.bus.pendingJobs(runnerSubject(runner.id))).toBe(0);
  });

  it("records the queued jobs of a suspended runner with the reason", async () => {
    const { org, runner } = await runnerSeen(1, { suspended: true });
    const results = await collectResults(api.bus, org.org_id);
    const job = await publishHttpJob(api.bus, org.org_id, runner.id, "mon_sus", "http://127.0.0.1:1/");
    await sweepStaleRunnerQueues(api.db.sql, api.bus, silentLogger);
    expect((await results.waitFor((x) => x.id === job.id, 5000)).error).toContain("suspended");
    await results.stop();
  });

  it("ignores runners not seen for hours (their jobs aged out of the stream long ago)", async () => {
    const { org, runner } = await runnerSeen(3 * 3600);
    await publishHttpJob(api.bus, org.org_id, runner.id, "mon_old", "http://127.0.0.1:1/");
    await sweepStaleRunnerQueues(api.db.sql, api.bus, silentLogger);
    expect(await api.bus.pendingJobs(runnerSubject(runner.id))).toBe(1);
  });
});
