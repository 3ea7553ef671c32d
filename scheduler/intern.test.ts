import { describe, expect, it } from "bun:test";
import { frozenJsonCopy } from "../core/bus/index.ts";
import { Interner } from "./intern.ts";

describe("Interner", () => {
  it("gives one shared, frozen copy of equal lists and short config values, and keeps each config its own object", () => {
    const i = new Interner();
    const a = i.config(JSON.parse('{"url":"http://a.example/1","method":"GET","expected_status":["200-399"],"headers":{"x":"1"}}'));
    const b = i.config(JSON.parse('{"url":"http://a.example/2","method":"GET","expected_status":["200-399"],"headers":{"x":"1"}}'));
    expect(a).not.toBe(b);
    expect(a.url).toBe("http://a.example/1");
    expect(b.expected_status).toBe(a.expected_status);
    expect(b.headers).toBe(a.headers);
    expect(Object.isFrozen(a.headers)).toBe(true);
    expect(() => (a.expected_status as string[]).push("500")).toThrow();
    // The bus's own frozen copy: a job carrying it is published without copying the config again.
    expect(Object.isFrozen(a)).toBe(true);
    expect(frozenJsonCopy(a)).toBe(a);
    expect(i.list(["eu", "us"])).toBe(i.list(["eu", "us"]));
    expect(i.list(["eu", "us"])).not.toBe(i.list(["us", "eu"]));
    expect(i.list([])).toBe(i.list([]));
    expect(i.list([])).toEqual([]);
  });

  it("leaves long values unshared and never changes what a value says", () => {
    const i = new Interner();
    const long = "x".repeat(40);
    expect(i.text(long)).toBe(long);
    const big = { body: "y".repeat(300) };
    const c = i.config({ assertions: big, n: 3, on: true, none: null });
    expect(c).toEqual({ assertions: big, n: 3, on: true, none: null });
    expect(Object.isFrozen(big)).toBe(false);
  });

  it("gives monitors set up alike one frozen profile, and a monitor set up otherwise its own", () => {
    const i = new Interner();
    const row = (over: object = {}) =>
      JSON.parse(JSON.stringify({ orgId: "org_0193aa11bb22cc33dd44ee55ff667788", type: "http", intervalMs: 20_000, timeoutMs: 5000, regions: ["eu"], runnerIds: [], tags: [], ...over }));
    const a = i.profile(row());
    expect(i.profile(row())).toBe(a);
    expect(Object.isFrozen(a)).toBe(true);
    expect(a).toEqual(row());
    expect(a.regions).toBe(i.list(["eu"]));
    for (const over of [{ orgId: "org_other" }, { type: "tcp" }, { intervalMs: 60_000 }, { timeoutMs: 9000 }, { regions: ["us"] }, { runnerIds: ["run_1"] }, { tags: ["prod"] }]) {
      const other = i.profile(row(over));
      expect(other).not.toBe(a);
      expect(other).toEqual(row(over));
    }
    // A list's items are not confused with the next field's: ["a"], [] is not [], ["a"].
    expect(i.profile(row({ regions: ["eu"], runnerIds: [] }))).not.toBe(i.profile(row({ regions: [], runnerIds: ["eu"] })));
  });

  it("starts its table over past its bound instead of growing with every distinct value", () => {
    const i = new Interner();
    const first = i.list(["r0"]);
    for (let k = 1; k <= 20_000; k++) i.list([`r${k}`]);
    const again = i.list(["r0"]);
    expect(again).toEqual(first);
    expect(again).not.toBe(first);
  });
});
