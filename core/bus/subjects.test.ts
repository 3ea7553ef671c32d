import { describe, expect, it } from "bun:test";
import { assertSubject, jobConsumerName, matchSubject, subjectsOverlap } from "./subjects.ts";

describe("subjects", () => {
  it("matches * to one token and > to one or more trailing tokens", () => {
    expect(matchSubject("events.*", "events.org1")).toBe(true);
    expect(matchSubject("events.*", "events.org1.x")).toBe(false);
    expect(matchSubject("events.*", "events")).toBe(false);
    expect(matchSubject("results.>", "results.org1.mon1")).toBe(true);
    expect(matchSubject("results.>", "results")).toBe(false);
    expect(matchSubject("results.org1.>", "results.org2.mon1")).toBe(false);
    expect(matchSubject("jobs.region.eu", "jobs.region.eu")).toBe(true);
  });

  it("tells whether two filters can match one subject", () => {
    expect(subjectsOverlap("jobs.region.eu", "jobs.region.*")).toBe(true);
    expect(subjectsOverlap("jobs.region.eu", "jobs.>")).toBe(true);
    expect(subjectsOverlap("jobs.region.eu", "jobs.region.us")).toBe(false);
    expect(subjectsOverlap("jobs.region.*", "jobs.runner.*")).toBe(false);
    expect(subjectsOverlap("jobs.region", "jobs.region.>")).toBe(false);
    expect(subjectsOverlap("jobs.*.eu", "jobs.region.*")).toBe(true);
  });

  it("refuses empty tokens and misplaced wildcards", () => {
    expect(() => assertSubject("jobs..eu", { wildcards: false })).toThrow();
    expect(() => assertSubject("jobs.region.*", { wildcards: false })).toThrow();
    expect(() => assertSubject("jobs.>.eu", { wildcards: true })).toThrow();
    expect(() => assertSubject("events.org 1", { wildcards: false })).toThrow();
    expect(() => assertSubject("jobs.region.*", { wildcards: true })).not.toThrow();
  });

  it("derives distinct, valid consumer names from job subjects", () => {
    expect(jobConsumerName("jobs.region.eu-west")).toBe("jobs_region_eu-west");
    const names = ["jobs.runner.run_1", "jobs.runner.run.1", "jobs.region.*", "jobs.region.all", "jobs.>"].map(jobConsumerName);
    expect(new Set(names).size).toBe(names.length);
    for (const n of names) expect(n).toMatch(/^[A-Za-z0-9_-]+$/);
  });
});
