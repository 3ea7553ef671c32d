import { describe, expect, it } from "bun:test";
import { QueryClient } from "@tanstack/react-query";
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
});
