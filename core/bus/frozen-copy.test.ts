import { describe, expect, it } from "bun:test";
import { frozenJsonCopy } from "./frozen-copy.ts";

const viaJson = (v: unknown) => JSON.parse(JSON.stringify(v));

describe("frozenJsonCopy", () => {
  it("gives what a JSON round trip gives", () => {
    const samples: unknown[] = [
      { id: "r1", n: 1.5, neg: -0, ok: true, none: null, gone: undefined, fn: () => 1, when: new Date("2026-11-26T10:00:00Z") },
      { nested: { list: [1, "two", undefined, null, NaN, Infinity, { deep: [[]] }], empty: {} }, unicode: "é☃\n\"q\"" },
      [undefined, () => 0, Symbol("s"), { toJSON: () => undefined }, -Infinity],
      { toJSON: (key: string) => ({ key }) },
      { inner: { toJSON: (key: string) => `at ${key}` }, map: new Map([["a", 1]]), boxed: [new Number(3), new String("s"), new Boolean(false)] },
      JSON.parse('{"__proto__": {"polluted": true}, "a": 1}'),
      "text",
      42,
      null,
    ];
    for (const v of samples) {
      const copied = frozenJsonCopy(v);
      expect(copied).toEqual(viaJson(v));
      expect(JSON.stringify(copied)).toBe(JSON.stringify(v));
    }
    const proto = frozenJsonCopy(JSON.parse('{"__proto__": {"polluted": true}}')) as Record<string, unknown>;
    expect(Object.getPrototypeOf(proto)).toBe(Object.prototype);
    expect(Object.keys(proto)).toEqual(["__proto__"]);
  });

  it("freezes every level and shares nothing with the original", () => {
    const original = { data: { list: [{ v: 1 }] } };
    const copied = frozenJsonCopy(original);
    expect(Object.isFrozen(copied) && Object.isFrozen(copied.data) && Object.isFrozen(copied.data.list) && Object.isFrozen(copied.data.list[0])).toBe(true);
    expect(() => {
      (copied.data.list[0] as { v: number }).v = 2;
    }).toThrow(TypeError);
    original.data.list[0]!.v = 3;
    expect(copied.data.list[0]!.v).toBe(1);
  });

  it("hands on a copy it made as it is, also nested in a new value, and copies anything else", () => {
    const data = frozenJsonCopy({ timings: { dns: 1, connect: 2 }, list: [1] });
    expect(frozenJsonCopy(data)).toBe(data);
    const event = frozenJsonCopy({ id: "e1", data });
    expect(event.data).toBe(data);
    const frozenByHand = Object.freeze({ a: Object.freeze({ b: 1 }) });
    expect(frozenJsonCopy(frozenByHand)).not.toBe(frozenByHand);
    expect(frozenJsonCopy(frozenByHand)).toEqual(frozenByHand);
  });

  it("refuses what JSON refuses", () => {
    expect(() => frozenJsonCopy({ big: 1n })).toThrow(TypeError);
  });
});
