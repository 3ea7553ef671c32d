import { describe, expect, it } from "bun:test";
import { statusMatcher } from "./expected-status.ts";

describe("statusMatcher", () => {
  it("matches exact codes", () => {
    const match = statusMatcher([200, 204]);
    expect([200, 204, 201].map(match)).toEqual([true, true, false]);
  });

  it("matches a status class like 2xx", () => {
    const match = statusMatcher(["2xx"]);
    expect([199, 200, 250, 299, 300].map(match)).toEqual([false, true, true, true, false]);
  });

  it("matches an inclusive range", () => {
    const match = statusMatcher(["200-399"]);
    expect([199, 200, 302, 399, 400].map(match)).toEqual([false, true, true, true, false]);
  });

  it("matches when any entry matches", () => {
    const match = statusMatcher([418, "5xx"]);
    expect([418, 503, 404].map(match)).toEqual([true, true, false]);
  });
});
