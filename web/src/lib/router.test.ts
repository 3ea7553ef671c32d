import { describe, expect, it } from "bun:test";
import { match } from "./router";

describe("match", () => {
  it("reads params and ignores a trailing slash", () => {
    expect(match("/monitors/:id/edit", "/monitors/mon_1/edit/")).toEqual({ id: "mon_1" });
  });
  it("refuses paths of another shape", () => {
    expect(match("/monitors/:id", "/monitors/mon_1/edit")).toBeNull();
    expect(match("/monitors/new", "/monitors/mon_1")).toBeNull();
  });
});
