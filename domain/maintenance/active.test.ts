import { describe, expect, it } from "bun:test";
import type { MaintenanceWindowRow } from "../../db/queries/maintenance-windows.ts";
import { suppressingSpansOf } from "./active.ts";

const t = (iso: string) => Date.parse(iso);
const base: MaintenanceWindowRow = {
  id: "mw_1",
  org_id: "org_1",
  name: "w",
  description: "",
  starts_at: null,
  ends_at: null,
  rrule: null,
  cron: null,
  duration_minutes: null,
  timezone: "UTC",
  monitor_ids: [],
  tags: [],
  pause_monitors: false,
  suppress_alerts: true,
  created_at: new Date(0),
  updated_at: new Date(0),
};

describe("suppressingSpansOf (an alert's clock stops inside these)", () => {
  it("lists the occurrences overlapping the span, merged, and runs one covering its end on to that occurrence's end", () => {
    const once = { ...base, starts_at: new Date("2026-11-26T10:00:00Z"), ends_at: new Date("2026-11-26T10:30:00Z") };
    const daily = { ...base, id: "mw_2", cron: "0 2 * * *", duration_minutes: 60 };
    const spans = suppressingSpansOf([once, daily], t("2026-11-25T00:00:00Z"), t("2026-11-26T10:10:00Z"));
    expect(spans).toEqual([
      [t("2026-11-25T02:00:00Z"), t("2026-11-25T03:00:00Z")],
      [t("2026-11-26T02:00:00Z"), t("2026-11-26T03:00:00Z")],
      [t("2026-11-26T10:00:00Z"), t("2026-11-26T10:30:00Z")],
    ]);
  });

  it("ignores windows that only pause monitors", () => {
    const pausing = { ...base, suppress_alerts: false, starts_at: new Date("2026-11-26T10:00:00Z"), ends_at: new Date("2026-11-26T11:00:00Z") };
    expect(suppressingSpansOf([pausing], t("2026-11-26T09:00:00Z"), t("2026-11-26T10:30:00Z"))).toEqual([]);
  });
});
