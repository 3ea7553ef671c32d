import { describe, expect, it } from "bun:test";
import { QueryClient } from "@tanstack/react-query";
import { applyLiveEvent } from "./live";

type Row = { monitor: { id: string; status: string }; uptime_24h_pct: number | null; bar: unknown[] };
const overview = (rows: [string, number | null][]) => ({
  pages: [{ counts: { up: rows.length, down: 0, degraded: 0, paused: 0, not_monitored: 0, total: rows.length }, data: rows.map(([id, uptime_24h_pct]) => ({ monitor: { id, status: "up" }, uptime_24h_pct, bar: [] })), pagination: {} }],
  pageParams: [1],
});
const uptimes = (qc: QueryClient) => Object.fromEntries(qc.getQueryData<{ pages: { data: Row[] }[] }>(["monitors", "overview", {}])!.pages[0]!.data.map((r) => [r.monitor.id, r.uptime_24h_pct]));
let n = 0;
const result = (monitorId: string, status: string) => {
  const at = new Date(Date.UTC(2026, 0, 1, 0, 0, n++)).toISOString();
  return { id: String(n), type: "check.result", at, data: { monitor_id: monitorId, scheduled_at: at, checked_at: at, status, duration_ms: 10, location: "eu" } };
};

describe("the overview's 24 h uptime, live", () => {
  it("reads again together, in one call, the uptime of the monitors a result moved, and keeps a flawless one at 100 without asking", async () => {
    const qc = new QueryClient();
    qc.setQueryData(["monitors", "overview", {}], overview([["mon_a", 100], ["mon_b", 97.5], ["mon_c", null], ["mon_d", 100]]));
    const reads: string[][] = [];
    const read = async (ids: string[]) => (reads.push(ids), ids.map((monitor_id) => ({ monitor_id, uptime_pct: monitor_id === "mon_a" ? 50 : 97.6 })));
    for (const [id, status] of [["mon_a", "down"], ["mon_b", "up"], ["mon_c", "up"], ["mon_d", "degraded"], ["mon_a", "timeout"], ["mon_d", "unavailable"]])
      applyLiveEvent(qc, result(id!, status!), { read, delayMs: 5 });
    // A first passing result, or one more on a flawless day, is 100 % at once.
    expect(uptimes(qc)).toEqual({ mon_a: 100, mon_b: 97.5, mon_c: 100, mon_d: 100 });
    await Bun.sleep(50);
    expect(reads).toEqual([["mon_a", "mon_b"]]);
    expect(uptimes(qc)).toEqual({ mon_a: 50, mon_b: 97.6, mon_c: 100, mon_d: 100 });
  });

  it("reads at most 100 monitors a call, one call at a time, however many results arrive", async () => {
    const qc = new QueryClient();
    const ids = Array.from({ length: 150 }, (_, i) => `mon_${i}`);
    qc.setQueryData(["monitors", "overview", {}], overview(ids.map((id) => [id, 99])));
    const reads: number[] = [];
    let inFlight = 0;
    const read = async (batch: string[]) => {
      expect(++inFlight).toBe(1);
      reads.push(batch.length);
      await Bun.sleep(10);
      inFlight--;
      return batch.map((monitor_id) => ({ monitor_id, uptime_pct: 98 }));
    };
    for (const id of ids) applyLiveEvent(qc, result(id, "down"), { read, delayMs: 5 });
    await Bun.sleep(100);
    expect(reads).toEqual([100, 50]);
    expect(Object.values(uptimes(qc)).every((u) => u === 98)).toBe(true);
  });
});
