import { describe, expect, it } from "bun:test";
import type { Monitor } from "../monitor-ref.ts";
import { computePlan } from "./plan.ts";
import { planJson, renderPlan } from "./render-plan.ts";

let n = 0;
const monitor = (name: string, tags: string[]): Monitor =>
  ({
    id: `mon_${String(++n).padStart(32, "0")}`,
    name,
    type: "tcp",
    config: { host: `${name}.example`, port: 443 },
    interval_seconds: 300,
    timeout_ms: 30000,
    paused: false,
    regions: ["local"],
    runner_ids: [],
    tags,
    created_at: "2026-01-01T00:00:00.000Z",
  }) as unknown as Monitor;
const entry = (key: string) => ({ key, name: key, type: "tcp" as const, config: { host: `${key}.example`, port: 443 } });
const plain = { json: false, color: false } as never;

describe("the plan of a file that no longer names a keyed item", () => {
  it("names each one it leaves alone and says --prune deletes it (a renamed key would otherwise go on being checked unseen)", () => {
    const stored = [monitor("shop", ["wp-key:shop"]), monitor("shop-kw", ["wp-key:shop-kw"]), monitor("by hand", [])];
    const plan = computePlan({ version: 1, monitors: [entry("shop"), entry("shop-keyword")] }, stored, [], [], { prune: false, resendSecrets: false, env: {} });
    const text = renderPlan(plain, plan);
    expect(text).toContain('monitor shop-kw ("shop-kw") is no longer in the file: left alone; apply --prune deletes it');
    expect(text).not.toContain("by hand");
    expect(planJson(plan).left_alone).toEqual([{ kind: "monitor", key: "shop-kw", id: stored[1]!.id, name: "shop-kw" }]);
  });
});
