import { describe, expect, it } from "bun:test";
import { type Condition, describeCondition, evaluateCondition, type ResultView } from "./conditions.ts";

const r = (status: string, data: Record<string, unknown> = {}, duration_ms = 100): ResultView => ({ status, duration_ms, data });
const v = (c: Condition, res: ResultView, memory = {}) => evaluateCondition(c, res, memory).verdict;

describe("conditions", () => {
  it("status_change matches `to` only; `from` is ignored", () => {
    const c: Condition = { type: "status_change", to: ["down", "timeout"], from: ["degraded"] };
    expect(v(c, r("down"))).toBe("holds");
    expect(v(c, r("timeout"))).toBe("holds");
    expect(v(c, r("up"))).toBe("passes");
    expect(v(c, r("degraded"))).toBe("passes");
  });

  it("unavailable results count neither way except for monitoring_unavailable", () => {
    expect(v({ type: "status_change", to: ["down"] }, r("unavailable"))).toBe("unknown");
    expect(v({ type: "metric_threshold", metric: "response_time", operator: "gt", threshold: 1 }, r("unavailable"))).toBe("unknown");
    expect(v({ type: "monitoring_unavailable" }, r("unavailable"))).toBe("holds");
    expect(v({ type: "monitoring_unavailable" }, r("down"))).toBe("passes");
  });

  it("metric_threshold reads response_time / duration_ms or a numeric data field; a missing metric is unknown", () => {
    const gt = (metric: string, threshold: number): Condition => ({ type: "metric_threshold", metric, operator: "gt", threshold });
    expect(v(gt("response_time", 500), r("up", {}, 800))).toBe("holds");
    expect(v(gt("duration_ms", 500), r("up", {}, 200))).toBe("passes");
    expect(v(gt("packet_loss_pct", 10), r("up", { packet_loss_pct: 25 }))).toBe("holds");
    expect(v(gt("packet_loss_pct", 10), r("up", {}))).toBe("unknown");
    expect(v(gt("packet_loss_pct", 10), r("up", { packet_loss_pct: "25" }))).toBe("unknown");
    const ops = { gt: [5, 4], lt: [3, 4], eq: [4, 5], neq: [5, 4], gte: [4, 3], lte: [4, 5] } as const;
    for (const [operator, [yes, no]] of Object.entries(ops)) {
      const c = { type: "metric_threshold", metric: "m", operator, threshold: 4 } as Condition;
      expect(v(c, r("up", { m: yes }))).toBe("holds");
      expect(v(c, r("up", { m: no }))).toBe("passes");
    }
  });

  it("ssl_expiry and domain_expiry fire at days_before or fewer", () => {
    expect(v({ type: "ssl_expiry", days_before: 14 }, r("up", { ssl_days_remaining: 14 }))).toBe("holds");
    expect(v({ type: "ssl_expiry", days_before: 14 }, r("up", { ssl_days_remaining: 15 }))).toBe("passes");
    expect(v({ type: "ssl_expiry", days_before: 14 }, r("up", {}))).toBe("unknown");
    expect(v({ type: "domain_expiry", days_before: 30 }, r("up", { domain_days_remaining: -2 }))).toBe("holds");
    expect(v({ type: "domain_expiry", days_before: 30 }, r("up", { domain_days_remaining: 31 }))).toBe("passes");
  });

  it("keyword_missing fires when the keyword was not found", () => {
    const c: Condition = { type: "keyword_missing", keyword: "Add to cart" };
    expect(v(c, r("down", { keyword_found: false, keyword: "Add to cart" }))).toBe("holds");
    expect(v(c, r("up", { keyword_found: true, keyword: "add to CART", keyword_case_sensitive: false }))).toBe("passes");
    // A result that does not say which keyword it looked for says nothing about this one.
    expect(v(c, r("down", { keyword_found: false }))).toBe("unknown");
    expect(v(c, r("up", {}))).toBe("unknown");
    expect(v(c, r("down", { keyword_found: false, keyword: "Checkout" }))).toBe("unknown");
  });

  it("certificate_changed compares with the previous fingerprint of the same monitor and region", () => {
    const c: Condition = { type: "certificate_changed" };
    const first = evaluateCondition(c, r("up", { fingerprint_sha256: "AA" }), {});
    expect(first).toEqual({ verdict: "passes", memory: { fingerprint: "AA" } });
    expect(evaluateCondition(c, r("up", { fingerprint_sha256: "AA" }), first.memory).verdict).toBe("passes");
    const changed = evaluateCondition(c, r("up", { fingerprint_sha256: "BB" }), first.memory);
    expect(changed).toEqual({ verdict: "holds", memory: { fingerprint: "BB" } });
    expect(evaluateCondition(c, r("down", {}), changed.memory)).toEqual({ verdict: "unknown", memory: { fingerprint: "BB" } });
  });

  it("describes each condition for messages", () => {
    expect(describeCondition({ type: "status_change", to: ["down", "timeout"] })).toBe("status is down or timeout");
    expect(describeCondition({ type: "metric_threshold", metric: "response_time", operator: "gte", threshold: 800 })).toBe("response_time ≥ 800");
  });
});
