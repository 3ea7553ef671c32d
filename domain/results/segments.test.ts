import { describe, expect, it } from "bun:test";
import { planSegments } from "./segments.ts";

const d = (s: string) => new Date(s);
const show = (from: string, to: string, coarsest?: "hourly" | "daily", through: string | null = null) =>
  planSegments(d(from), d(to), through ? d(through) : null, coarsest).map((s) => `${s.source} ${s.from.toISOString().slice(5, 16)}..${s.to.toISOString().slice(5, 16)}`);

describe("planSegments", () => {
  it("reads whole days from the daily rollup, whole hours from the hourly one and the rest raw", () => {
    expect(show("2026-03-01T10:30:00Z", "2026-03-04T02:15:00Z")).toEqual([
      "raw 03-01T10:30..03-01T11:00",
      "hourly 03-01T11:00..03-02T00:00",
      "daily 03-02T00:00..03-04T00:00",
      "hourly 03-04T00:00..03-04T02:00",
      "raw 03-04T02:00..03-04T02:15",
    ]);
  });

  it("uses only raw rows for a range inside one hour", () => {
    expect(show("2026-03-01T10:05:00Z", "2026-03-01T10:55:00Z")).toEqual(["raw 03-01T10:05..03-01T10:55"]);
  });

  it("uses only rollups for aligned ranges", () => {
    expect(show("2026-03-01T00:00:00Z", "2026-03-03T00:00:00Z")).toEqual(["daily 03-01T00:00..03-03T00:00"]);
    expect(show("2026-03-01T05:00:00Z", "2026-03-01T09:00:00Z")).toEqual(["hourly 03-01T05:00..03-01T09:00"]);
  });

  it("keeps to hours when day rows are not allowed", () => {
    expect(show("2026-03-01T10:30:00Z", "2026-03-03T00:00:00Z", "hourly")).toEqual([
      "raw 03-01T10:30..03-01T11:00",
      "hourly 03-01T11:00..03-03T00:00",
    ]);
  });

  it("gives nothing for an empty or reversed range", () => {
    expect(planSegments(d("2026-03-01T00:00:00Z"), d("2026-03-01T00:00:00Z"), null)).toEqual([]);
    expect(planSegments(d("2026-03-02T00:00:00Z"), d("2026-03-01T00:00:00Z"), null)).toEqual([]);
  });

  it("reads raw rows from the last hour that ends by the rollup watermark on", () => {
    expect(show("2026-03-01T10:30:00Z", "2026-03-04T02:15:00Z", "daily", "2026-03-04T01:59:00Z")).toEqual([
      "raw 03-01T10:30..03-01T11:00",
      "hourly 03-01T11:00..03-02T00:00",
      "daily 03-02T00:00..03-04T00:00",
      "hourly 03-04T00:00..03-04T01:00",
      "raw 03-04T01:00..03-04T02:15",
    ]);
    expect(show("2026-03-01T10:30:00Z", "2026-03-04T02:15:00Z", "daily", "2026-03-03T00:00:30Z")).toEqual([
      "raw 03-01T10:30..03-01T11:00",
      "hourly 03-01T11:00..03-02T00:00",
      "daily 03-02T00:00..03-03T00:00",
      "raw 03-03T00:00..03-04T02:15",
    ]);
    expect(show("2026-03-01T10:30:00Z", "2026-03-01T14:00:00Z", "daily", "2026-03-01T11:00:00Z")).toEqual(["raw 03-01T10:30..03-01T14:00"]);
    expect(show("2026-03-01T05:00:00Z", "2026-03-01T09:00:00Z", "daily", "2026-03-02T00:00:00Z")).toEqual(["hourly 03-01T05:00..03-01T09:00"]);
  });
});
