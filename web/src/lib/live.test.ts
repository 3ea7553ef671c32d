import { describe, expect, it } from "bun:test";
import { QueryClient, QueryObserver } from "@tanstack/react-query";
import { applyLiveEvent } from "./live";

const page = (rows: Record<string, unknown>[]) => ({ pages: [{ data: rows, pagination: {} }], pageParams: [1] });

describe("applyLiveEvent", () => {
  it("updates a monitor's status in every cached overview page without refetching", () => {
    const qc = new QueryClient();
    qc.setQueryData(["monitors", {}], page([{ id: "mon_a", status: "up" }, { id: "mon_b", status: "up" }]));
    qc.setQueryData(["monitors", { search: "a" }], page([{ id: "mon_a", status: "up" }]));
    applyLiveEvent(qc, { id: "1", type: "monitor.status_changed", at: "2026-01-01T00:00:00Z", data: { monitor_id: "mon_a", from: "up", to: "down", at: "2026-01-01T00:00:00Z" } });
    expect(qc.getQueryData<ReturnType<typeof page>>(["monitors", {}])!.pages[0]!.data).toEqual([
      { id: "mon_a", status: "down", status_changed_at: "2026-01-01T00:00:00Z" },
      { id: "mon_b", status: "up" },
    ]);
    expect(qc.getQueryData<ReturnType<typeof page>>(["monitors", { search: "a" }])!.pages[0]!.data[0]).toMatchObject({ status: "down" });
  });

  it("moves a monitor between the overview's counts and adds each result to its bar, keeping the newest 60", () => {
    const qc = new QueryClient();
    const bar = Array.from({ length: 60 }, (_, i) => ({ at: new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString(), status: "up", duration_ms: i, location: "eu" }));
    const counts = { up: 2, down: 0, degraded: 0, paused: 1, not_monitored: 1, total: 4 };
    const rows: { monitor: Record<string, unknown>; uptime_24h_pct: number | null; bar: typeof bar }[] = [
      { monitor: { id: "mon_a", status: "up", last_duration_ms: 59 }, uptime_24h_pct: 100, bar },
      { monitor: { id: "mon_b", status: "pending" }, uptime_24h_pct: null, bar: [] },
    ];
    qc.setQueryData(["monitors", "overview", {}], { pages: [{ counts, data: rows, pagination: {} }], pageParams: [1] });
    const at = "2026-01-01T01:00:00.000Z";
    applyLiveEvent(qc, { id: "1", type: "monitor.status_changed", at, data: { monitor_id: "mon_a", from: "up", to: "timeout", at } });
    // The timeout moves mon_a's uptime: read again (live-uptime.test.ts), here from nowhere.
    applyLiveEvent(qc, { id: "2", type: "check.result", at, data: { monitor_id: "mon_a", scheduled_at: at, checked_at: at, status: "timeout", duration_ms: 5000, location: "us" } }, { read: async () => [] });
    applyLiveEvent(qc, { id: "3", type: "check.result", at, data: { monitor_id: "mon_b", scheduled_at: at, checked_at: at, status: "unavailable", duration_ms: 0, location: "us" } });
    applyLiveEvent(qc, { id: "4", type: "monitor.status_changed", at, data: { monitor_id: "mon_b", from: "pending", to: "up", at } });
    // The same result delivered twice (a reconnect) is drawn once.
    applyLiveEvent(qc, { id: "2", type: "check.result", at, data: { monitor_id: "mon_a", scheduled_at: at, checked_at: at, status: "timeout", duration_ms: 5000, location: "us" } });
    const p = qc.getQueryData<{ pages: { counts: typeof counts; data: typeof rows }[] }>(["monitors", "overview", {}])!.pages[0]!;
    expect(p.counts).toEqual({ up: 2, down: 1, degraded: 0, paused: 1, not_monitored: 0, total: 4 });
    const a = p.data[0]!;
    expect(a.monitor).toMatchObject({ status: "timeout", last_duration_ms: 5000 });
    expect(a.bar).toHaveLength(60);
    expect(a.bar[0]!.duration_ms).toBe(1);
    expect(a.bar.at(-1)).toEqual({ at, status: "timeout", duration_ms: 5000, location: "us" });
    // An unavailable result is drawn but never changes the monitor's response time.
    expect(p.data[1]!.bar).toEqual([{ at, status: "unavailable", duration_ms: 0, location: "us" }]);
    expect(p.data[1]!.monitor).toEqual({ id: "mon_b", status: "up", status_changed_at: at });
  });

  it("leaves a cached list without the monitor stale (created after the list was fetched): refetched, never shown as empty", async () => {
    const qc = new QueryClient();
    qc.setQueryData(["monitors", {}], { pages: [{ data: [], pagination: { total: 0, hasMore: false } }], pageParams: [1] });
    await qc.invalidateQueries({ queryKey: ["monitors"] }); // the form's create
    applyLiveEvent(qc, { id: "9", type: "check.result", at: "x", data: { monitor_id: "mon_new", status: "up", duration_ms: 5, checked_at: "2026-01-01T00:00:01Z" } });
    expect(qc.getQueryState(["monitors", {}])!.isInvalidated).toBe(true);
    // The overview likewise: its counts never included the new monitor, so it is refetched rather than patched.
    qc.setQueryData(["monitors", "overview", {}], { pages: [{ counts: { up: 0, down: 0, degraded: 0, paused: 0, not_monitored: 0, total: 0 }, data: [], pagination: {} }], pageParams: [1] });
    applyLiveEvent(qc, { id: "10", type: "monitor.status_changed", at: "x", data: { monitor_id: "mon_new", from: "pending", to: "up", at: "2026-01-01T00:00:01Z" } });
    expect(qc.getQueryState(["monitors", "overview", {}])!.isInvalidated).toBe(true);
  });

  it("records the last response time of a check result on the monitor", () => {
    const qc = new QueryClient();
    qc.setQueryData(["monitor", "mon_a"], { id: "mon_a", last_duration_ms: 10 });
    applyLiveEvent(qc, { id: "2", type: "check.result", at: "x", data: { monitor_id: "mon_a", duration_ms: 42, checked_at: "2026-01-01T00:00:01Z" } });
    expect(qc.getQueryData(["monitor", "mon_a"])).toEqual({ id: "mon_a", last_duration_ms: 42, last_checked_at: "2026-01-01T00:00:01Z" });
  });

  it("marks alert lists and notifications stale when an alert fires", () => {
    const qc = new QueryClient();
    qc.setQueryData(["alerts", "active"], { data: [] });
    qc.setQueryData(["notifications", "count"], { unread: 0 });
    applyLiveEvent(qc, { id: "3", type: "alert.fired", at: "x", data: { rule_id: "r", monitor_id: "m", region: "local" } });
    expect(qc.getQueryState(["alerts", "active"])!.isInvalidated).toBe(true);
    expect(qc.getQueryState(["notifications", "count"])!.isInvalidated).toBe(true);
  });

  it("puts a live result on top of the first page of the monitor's results whose filters it matches", () => {
    const qc = new QueryClient();
    const page = (ids: string[]) => ({ data: ids.map((id) => ({ id })), pagination: { total: ids.length, limit: 2, page: 1 } });
    qc.setQueryData(["monitor-checks", "mon_a", { page: 1 }], page(["chk_2", "chk_1"]));
    qc.setQueryData(["monitor-checks", "mon_a", { page: 2 }], page(["chk_0"]));
    qc.setQueryData(["monitor-checks", "mon_a", { page: 1, status: "down" }], page([]));
    qc.setQueryData(["monitor-checks", "mon_b", { page: 1 }], page([]));
    const result = { type: "check.result", at: "x", data: { id: "chk_3", monitor_id: "mon_a", location: "eu", status: "up", duration_ms: 9, error: null, checked_at: "2026-01-01T00:00:03Z", data: {} } };
    applyLiveEvent(qc, { id: "4", ...result });
    applyLiveEvent(qc, { id: "5", ...result }); // a replayed event is not added twice
    const first = qc.getQueryData<{ data: { id: string }[]; pagination: { total: number } }>(["monitor-checks", "mon_a", { page: 1 }])!;
    expect(first.data.map((r) => r.id)).toEqual(["chk_3", "chk_2"]);
    expect(first.pagination.total).toBe(3);
    expect(qc.getQueryData<{ data: unknown[] }>(["monitor-checks", "mon_a", { page: 2 }])!.data).toHaveLength(1);
    expect(qc.getQueryData<{ data: unknown[] }>(["monitor-checks", "mon_a", { page: 1, status: "down" }])!.data).toHaveLength(0);
    expect(qc.getQueryData<{ data: unknown[] }>(["monitor-checks", "mon_b", { page: 1 }])!.data).toHaveLength(0);
  });

  it("leaves the monitor's state alone for an unavailable result", () => {
    const qc = new QueryClient();
    qc.setQueryData(["monitor", "mon_a"], { id: "mon_a", last_duration_ms: 10 });
    applyLiveEvent(qc, { id: "6", type: "check.result", at: "x", data: { monitor_id: "mon_a", status: "unavailable", duration_ms: 0, checked_at: "2026-01-01T00:00:01Z" } });
    expect(qc.getQueryData(["monitor", "mon_a"])).toEqual({ id: "mon_a", last_duration_ms: 10 });
  });
});

describe("a live result while the page of results is being read", () => {
  it("reads the page again once the result's event came, so a read that started before the result was stored does not hide it", async () => {
    const qc = new QueryClient();
    const key = ["monitor-checks", "mon_a", { page: 1, limit: 100 }];
    const stored: { id: string }[] = [];
    let release = () => {};
    let reads = 0;
    const queryFn = async () => {
      reads++;
      // The first read's snapshot is taken at once, before the result is stored; it answers later.
      const snapshot = [...stored];
      if (reads === 1) await new Promise<void>((r) => (release = r));
      return { data: snapshot, pagination: { total: snapshot.length, limit: 100, page: 1 } };
    };
    const unsubscribe = new QueryObserver(qc, { queryKey: key, queryFn }).subscribe(() => {});
    await Bun.sleep(0);
    stored.push({ id: "chk_1" }); // ingest stores the result, then announces it
    applyLiveEvent(qc, { id: "7", type: "check.result", at: "x", data: { id: "chk_1", monitor_id: "mon_a", location: "eu", status: "up", duration_ms: 9, error: null, checked_at: "2026-01-01T00:00:03Z", data: {} } });
    release();
    for (let i = 0; i < 50 && qc.getQueryState(key)?.fetchStatus !== "idle"; i++) await Bun.sleep(5);
    expect(qc.getQueryData<{ data: { id: string }[] }>(key)!.data.map((r) => r.id)).toEqual(["chk_1"]);
    unsubscribe();
  });
});
