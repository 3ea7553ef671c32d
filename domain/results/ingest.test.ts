import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { createTestDatabase, type TestDatabase } from "../../tests/support/db.ts";
import { HISTOGRAM_BOUNDS, emptyHistogram, histogramIndex } from "./histogram.ts";
import { storeResults } from "./ingest.ts";
import { rebuildRollups } from "./rollups.ts";
import { createOrgWithMonitors, makeResult, prng } from "./test-fixtures.ts";

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
}, 60_000);
afterAll(async () => {
  await db.drop();
}, 30_000);

const monitorState = async (id: string) => {
  const [m] = await db.sql`
    select m.status, m.status_changed_at, s.last_checked_at, s.last_duration_ms
    from monitors m left join monitor_state s on s.monitor_id = m.id where m.id = ${id}`;
  return m!;
};

describe("storeResults", () => {
  it("stores a job once and counts it once in the rollups when it is delivered twice", async () => {
    const { orgId, monitorIds: [mon] } = await createOrgWithMonitors(db.sql);
    const r = makeResult(orgId, mon!, "2026-11-20T10:15:00Z", "down", { duration_ms: 250 });
    const first = await storeResults(db.sql, [r, { ...r, status: "up" }]);
    const again = await storeResults(db.sql, [{ ...r, checked_at: new Date("2026-11-20T10:20:00Z"), status: "up" }]);
    expect(first.inserted.map((i) => [i.job_id, i.status])).toEqual([[r.job_id, "down"]]);
    expect(first.inserted[0]!.id).toMatch(/^chk_[0-9a-f]{32}$/);
    expect(again).toEqual({ inserted: [], statusChanges: [] });
    const rows = await db.sql`select status from check_results where monitor_id = ${mon!}`;
    expect(rows.map((x) => x.status)).toEqual(["down"]);
    for (const table of ["check_results_hourly", "check_results_daily"]) {
      const [roll] = await db.sql`select bucket, total, down, up, duration_sum::int as sum, duration_max, hist from ${db.sql(table)} where monitor_id = ${mon!}`;
      expect(roll).toMatchObject({ total: 1, down: 1, up: 0, sum: 250, duration_max: 250 });
      expect(roll!.hist[HISTOGRAM_BOUNDS.indexOf(250)]).toBe(1);
    }
  });

  it("adds later batches into the existing rollup rows", async () => {
    const { orgId, monitorIds: [mon] } = await createOrgWithMonitors(db.sql);
    await storeResults(db.sql, [makeResult(orgId, mon!, "2026-11-20T10:01:00Z", "up", { duration_ms: 100 })]);
    await storeResults(db.sql, [
      makeResult(orgId, mon!, "2026-11-20T10:02:00Z", "timeout", { duration_ms: 30000 }),
      makeResult(orgId, mon!, "2026-11-20T10:03:00Z", "unavailable", { duration_ms: 0 }),
      makeResult(orgId, mon!, "2026-11-20T11:03:00Z", "degraded", { duration_ms: 900 }),
    ]);
    const hourly = await db.sql`
      select bucket, total, up, down, degraded, timeout, unavailable, duration_sum::int as sum, duration_max as max
      from check_results_hourly where monitor_id = ${mon!} order by bucket`;
    expect(hourly.map((h) => ({ ...h }))).toEqual([
      { bucket: new Date("2026-11-20T10:00:00Z"), total: 3, up: 1, down: 0, degraded: 0, timeout: 1, unavailable: 1, sum: 30100, max: 30000 },
      { bucket: new Date("2026-11-20T11:00:00Z"), total: 1, up: 0, down: 0, degraded: 1, timeout: 0, unavailable: 0, sum: 900, max: 900 },
    ]);
    const [daily] = await db.sql`select total, duration_sum::int as sum, hist from check_results_daily where monitor_id = ${mon!}`;
    expect(daily).toMatchObject({ total: 4, sum: 31000 });
    expect(daily!.hist.reduce((a: number, b: number) => a + b, 0)).toBe(3);
  });

  it("keeps rollup histograms equal to a rebuild from the raw rows, batch after batch of one or several results", async () => {
    const { orgId, monitorIds: [mon] } = await createOrgWithMonitors(db.sql);
    const at = (minute: number) => new Date(Date.parse("2026-11-20T10:00:00Z") + minute * 60_000);
    // One result per batch (the increment of one bucket), first and last buckets included, then batches
    // holding two results in one bucket and in two buckets of the same hour, and an unavailable one.
    const durations = [0, 1, 120_000, 500_000, 250, 250, 250, 30, 30, 99_999, 7];
    for (const [i, ms] of durations.entries()) await storeResults(db.sql, [makeResult(orgId, mon!, at(i), "up", { duration_ms: ms })]);
    await storeResults(db.sql, [makeResult(orgId, mon!, at(20), "up", { duration_ms: 40 }), makeResult(orgId, mon!, at(21), "down", { duration_ms: 40 })]);
    await storeResults(db.sql, [makeResult(orgId, mon!, at(22), "up", { duration_ms: 3 }), makeResult(orgId, mon!, at(23), "degraded", { duration_ms: 4000 })]);
    await storeResults(db.sql, [makeResult(orgId, mon!, at(24), "unavailable", { duration_ms: 0 })]);
    await storeResults(db.sql, [makeResult(orgId, mon!, at(70), "up", { duration_ms: 0 })]);
    const read = async () =>
      (await db.sql`
        select 'hourly' as t, bucket, total, up, down, degraded, unavailable, duration_sum::int as sum, duration_max, hist from check_results_hourly where monitor_id = ${mon!}
        union all
        select 'daily', bucket, total, up, down, degraded, unavailable, duration_sum::int, duration_max, hist from check_results_daily where monitor_id = ${mon!}
        order by 1, 2`).map((r) => ({ ...r }));
    const incremental = await read();
    const expected = emptyHistogram();
    for (const ms of [...durations, 40, 40, 3, 4000]) expected[histogramIndex(ms)]!++;
    expect(incremental.find((r) => r.t === "hourly")!.hist).toEqual(expected);
    await rebuildRollups(db.sql, orgId, [mon!], at(0), at(71));
    expect(await read()).toEqual(incremental);
  });

  it("reports status changes with the old and new status and ignores unavailable results", async () => {
    const { orgId, monitorIds: [mon, other] } = await createOrgWithMonitors(db.sql, { monitors: 2 });
    const first = await storeResults(db.sql, [
      makeResult(orgId, mon!, "2026-11-20T10:00:00Z", "up", { duration_ms: 120 }),
      makeResult(orgId, other!, "2026-11-20T10:00:00Z", "unavailable"),
    ]);
    expect(first.statusChanges).toEqual([{ org_id: orgId, monitor_id: mon!, from: "pending", to: "up", at: new Date("2026-11-20T10:00:01Z") }]);
    expect((await monitorState(other!)).status).toBe("pending");

    const down = await storeResults(db.sql, [
      makeResult(orgId, mon!, "2026-11-20T10:01:00Z", "down", { duration_ms: 5000 }),
      makeResult(orgId, mon!, "2026-11-20T10:02:00Z", "unavailable"),
    ]);
    expect(down.statusChanges.map((c) => [c.from, c.to])).toEqual([["up", "down"]]);
    expect(await monitorState(mon!)).toEqual({
      status: "down",
      status_changed_at: new Date("2026-11-20T10:01:01Z"),
      last_checked_at: new Date("2026-11-20T10:01:01Z"),
      last_duration_ms: 5000,
    });

    const same = await storeResults(db.sql, [makeResult(orgId, mon!, "2026-11-20T10:03:00Z", "down", { duration_ms: 4000 })]);
    expect(same.statusChanges).toEqual([]);
    expect(await monitorState(mon!)).toMatchObject({ status: "down", status_changed_at: new Date("2026-11-20T10:01:01Z"), last_duration_ms: 4000 });
  });

  it("takes the newest result of a batch and never lets an older result overwrite the state", async () => {
    const { orgId, monitorIds: [mon] } = await createOrgWithMonitors(db.sql);
    const batch = await storeResults(db.sql, [
      makeResult(orgId, mon!, "2026-11-20T10:05:00Z", "degraded", { location: "us" }),
      makeResult(orgId, mon!, "2026-11-20T10:04:00Z", "down"),
    ]);
    expect(batch.statusChanges.map((c) => c.to)).toEqual(["degraded"]);
    const late = await storeResults(db.sql, [makeResult(orgId, mon!, "2026-11-20T09:00:00Z", "timeout")]);
    expect(late.inserted).toHaveLength(1);
    expect(late.statusChanges).toEqual([]);
    expect(await monitorState(mon!)).toMatchObject({ status: "degraded", last_checked_at: new Date("2026-11-20T10:05:01Z") });
  });

  it("rewrites the wide monitors row only when the status changes, while the latest check moves on every result", async () => {
    const { orgId, monitorIds: [mon] } = await createOrgWithMonitors(db.sql);
    const version = async () => (await db.sql`select xmin::text as v from monitors where id = ${mon!}`)[0]!.v as string;
    await storeResults(db.sql, [makeResult(orgId, mon!, "2026-11-20T10:00:00Z", "up", { duration_ms: 100 })]);
    const afterFirst = await version();
    for (const [i, ms] of [110, 120, 130].entries()) {
      const out = await storeResults(db.sql, [makeResult(orgId, mon!, `2026-11-20T10:0${i + 1}:00Z`, "up", { duration_ms: ms })]);
      expect(out.statusChanges).toEqual([]);
    }
    expect(await version()).toBe(afterFirst);
    expect(await monitorState(mon!)).toEqual({
      status: "up",
      status_changed_at: new Date("2026-11-20T10:00:01Z"),
      last_checked_at: new Date("2026-11-20T10:03:01Z"),
      last_duration_ms: 130,
    });
    const down = await storeResults(db.sql, [makeResult(orgId, mon!, "2026-11-20T10:04:00Z", "down", { duration_ms: 140 })]);
    expect(down.statusChanges.map((c) => [c.from, c.to, c.at])).toEqual([["up", "down", new Date("2026-11-20T10:04:01Z")]]);
    expect(await version()).not.toBe(afterFirst);
  });

  it("reports one chain of status changes when batches of one monitor are stored concurrently", async () => {
    const { orgId, monitorIds: [mon] } = await createOrgWithMonitors(db.sql);
    const statuses = ["down", "up", "degraded", "up", "timeout", "down", "up", "up", "down", "degraded"] as const;
    const changes = (
      await Promise.all(
        statuses.map((status, i) => storeResults(db.sql, [makeResult(orgId, mon!, new Date(Date.parse("2026-11-20T10:00:00Z") + i * 60_000), status)])),
      )
    ).flatMap((o) => o.statusChanges);
    // Whatever order the transactions committed in, the reported changes link up from 'pending' to the
    // status of the newest result, and the monitor shows that newest result.
    changes.sort((a, b) => a.at.getTime() - b.at.getTime());
    expect(changes[0]!.from).toBe("pending");
    for (let i = 1; i < changes.length; i++) expect(changes[i]!.from).toBe(changes[i - 1]!.to);
    expect(changes.at(-1)!.to).toBe("degraded");
    expect(await monitorState(mon!)).toMatchObject({ status: "degraded", last_checked_at: new Date("2026-11-20T10:09:01Z") });
  });

  it("keeps results of another organisation's monitor away from that monitor", async () => {
    const a = await createOrgWithMonitors(db.sql);
    const b = await createOrgWithMonitors(db.sql);
    const out = await storeResults(db.sql, [makeResult(b.orgId, a.monitorIds[0]!, "2026-11-20T10:00:00Z", "down")]);
    expect(out.statusChanges).toEqual([]);
    expect((await monitorState(a.monitorIds[0]!)).status).toBe("pending");
  });

  it("stores large batches in one call and survives concurrent duplicate batches", async () => {
    const { orgId, monitorIds } = await createOrgWithMonitors(db.sql, { monitors: 5 });
    const batch = Array.from({ length: 5000 }, (_, i) =>
      makeResult(orgId, monitorIds[i % 5]!, new Date(Date.parse("2026-11-19T00:00:00Z") + i * 12_000), i % 7 ? "up" : "down", {
        location: i % 2 ? "eu" : "us",
        duration_ms: i,
        error: "tab\there \"quoted\" back\\slash\nnewline",
        data: { nested: { list: [1, "two"] }, unicode: "é☃" },
      }),
    );
    const [a, b] = await Promise.all([storeResults(db.sql, batch), storeResults(db.sql, [...batch].reverse())]);
    expect(a.inserted.length + b.inserted.length).toBe(5000);
    const [count] = await db.sql`select count(*)::int as n, sum(total)::int as t from check_results_daily where org_id = ${orgId}`;
    expect(count!.t).toBe(5000);
    const [row] = await db.sql`select error, data from check_results where job_id = ${batch[1]!.job_id}`;
    expect(row).toEqual({ error: batch[1]!.error, data: batch[1]!.data });
  });

  it("uses the same histogram buckets in SQL as in TypeScript", async () => {
    const probes = HISTOGRAM_BOUNDS.flatMap((b) => [b, b + 1, Math.max(0, b - 1)]);
    const rows = await db.sql<{ ms: number; bucket: number }[]>`
      select ms, result_duration_bucket(ms) as bucket from unnest(${db.sql.array(probes)}::int[]) ms`;
    const expected = emptyHistogram();
    for (const { ms, bucket } of rows) {
      const index = HISTOGRAM_BOUNDS.findLastIndex((lo) => lo <= ms);
      expect([ms, bucket, histogramIndex(ms)]).toEqual([ms, index, index]);
      expected[index]!++;
    }
    const [hist] = await db.sql`select result_duration_hist(ms) as h from unnest(${db.sql.array(probes)}::int[]) ms`;
    expect(hist!.h).toEqual(expected);
  });

  it("sums histograms element by element in SQL, skipping nulls (rollup rows into wider buckets)", async () => {
    const rand = prng(5);
    const hists = Array.from({ length: 5 }, () => Array.from({ length: HISTOGRAM_BOUNDS.length }, () => Math.floor(rand() * 1000)));
    const expected = hists.reduce((sum, h) => sum.map((v, i) => v + h[i]!), emptyHistogram());
    const literal = (h: number[] | null) => (h ? `{${h.join(",")}}` : null);
    const [row] = await db.sql`
      select result_hist_sum(h::int[]) as sum, result_hist_sum(h::int[]) filter (where false) as none
      from unnest(${[literal(null), ...hists.map(literal), literal(null)]}::text[]) as h`;
    expect(row!.sum).toEqual(expected);
    expect(row!.none).toEqual(emptyHistogram());
  });
});
