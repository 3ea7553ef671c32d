import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { client, makeOrg, startTestApi, type TestApi } from "../support/api.ts";

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.stop());

/** The spec's figures, verbatim: plan quotas it fixes, annual per-month prices, and the add-on table. */
const SPEC_QUOTAS = {
  free: { runners: 0, alert_rules: 10, alert_channels: 5 },
  starter: { runners: 1, alert_rules: 15, alert_channels: 10 },
  pro: { runners: 3, alert_rules: 25, alert_channels: 20 },
  business: { runners: 10, alert_rules: 50, alert_channels: 50 },
};
const SPEC_ANNUAL_PER_MONTH = { free: 0, starter: 599, pro: 2499, business: 22000 };
const SPEC_ADDONS: [string, number, string][] = [
  ["+25 Standard uptime monitors (5 min minimum interval)", 499, "free"],
  ["+25 Fast uptime monitors (1 min minimum interval)", 999, "starter"],
  ["+25 Real-time uptime monitors (30 s minimum interval)", 1999, "pro"],
  ["+1 Lite browser (Standard)", 499, "starter"],
  ["+1 Lite browser (Fast)", 999, "pro"],
  ["+1 Flow monitor (Standard)", 799, "pro"],
  ["+1 Flow monitor (Fast)", 1499, "pro"],
  ["+1 Flow monitor (Real-time)", 3999, "business"],
  ["+1 Self-hosted browser monitor", 999, "starter"],
  ["+1 Self-hosted runner slot", 499, "starter"],
  ["+5 Team members", 499, "pro"],
  ["+3 Status pages", 499, "pro"],
];

describe("the catalogue (GET /billing/plans) carries the spec's figures", () => {
  it("four plans with the spec's runner, alert-rule and alert-channel quotas, and annual about 15 % cheaper", async () => {
    const o = await makeOrg(api.sql);
    const { plans, currency } = (await client(api.url, { key: o.api_key })("GET", "/api/v1/billing/plans")).body;
    expect(currency).toBe("USD");
    expect(plans.map((p: any) => p.id)).toEqual(["free", "starter", "pro", "business"]);
    for (const p of plans) {
      const id = p.id as keyof typeof SPEC_QUOTAS;
      expect(p.quotas).toMatchObject(SPEC_QUOTAS[id]);
      expect(p.annual_price_cents).toBe(SPEC_ANNUAL_PER_MONTH[id] * 12);
      expect(p.annual_monthly_equivalent_cents).toBe(SPEC_ANNUAL_PER_MONTH[id]);
      if (id !== "free") {
        const saving = 1 - p.annual_price_cents / (12 * p.monthly_price_cents);
        expect(saving).toBeGreaterThan(0.13);
        expect(saving).toBeLessThan(0.18);
      }
      expect(p.grace_days).toBeGreaterThanOrEqual(3);
      expect(p.grace_days).toBeLessThanOrEqual(7);
      for (const q of ["monitors", "min_interval_seconds", "lite_browser", "flow_browser", "self_hosted_browser", "members", "status_pages", "regions", "retention_days"]) {
        expect(typeof p.quotas[q], `${id}.${q}`).toBe("number");
      }
    }
  });

  it("the twelve add-ons with the spec's monthly price and minimum plan, each adding capacity", async () => {
    const o = await makeOrg(api.sql);
    const { addons } = (await client(api.url, { key: o.api_key })("GET", "/api/v1/billing/plans")).body;
    expect(addons.map((a: any) => [a.name, a.monthly_price_cents, a.minimum_plan])).toEqual(SPEC_ADDONS);
    for (const a of addons) expect(Object.values(a.grants as Record<string, number>).every((n) => n > 0)).toBe(true);
  });
});
