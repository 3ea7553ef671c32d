import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { client, makeOrg, signUp, startTestApi, type TestApi } from "../support/api.ts";

/** The subscription statuses of the spec's state table; nothing else is ever shown. */
const SPEC_STATUSES = ["active", "grace_period", "past_due", "pending_cancellation", "cancelled"];

describe("a deployment that bills", () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi();
  });
  afterAll(() => api.stop());

  it("shows a never-subscribed organisation's Free plan as active, a status of the spec", async () => {
    const o = await makeOrg(api.sql, "free");
    const sub = (await client(api.url, { key: o.api_key })("GET", "/api/v1/billing/subscription")).body;
    expect(sub).toMatchObject({ billing_enabled: true, status: "active", plan: { id: "free", line_id: null }, lines: [] });
  });

  it("documents the subscription status as the spec's values only", async () => {
    const doc = (await (await fetch(`${api.url}/openapi.json`)).json()) as any;
    const schema = doc.paths["/api/v1/billing/subscription"].get.responses["200"].content["application/json"].schema;
    const resolved = schema.$ref ? doc.components.schemas[schema.$ref.split("/").pop()] : schema;
    const status = resolved.properties.status;
    const values: string[] = status.enum ?? (status.anyOf ?? []).map((s: { const: string }) => s.const);
    expect(values.sort()).toEqual([...SPEC_STATUSES].sort());
  });
});

describe("BILLING=off: one self-hosted plan everywhere", () => {
  let off: TestApi;
  beforeAll(async () => {
    // Sign-up opened (self-hosted closes it by default): the test signs a user up to read what they see.
    off = await startTestApi({ BILLING: "off", SIGNUP_OPEN: "true" });
  });
  afterAll(() => off.stop());

  it("shows the self-hosted plan with the entitlements' quotas on every billing and organisation read", async () => {
    const user = await signUp(off.url);
    await off.sql`update organisations set plan_id = 'business' where id = ${user.orgId}`;
    const call = user.call;
    const ent = (await call("GET", "/api/v1/entitlements")).body;
    expect(ent).toMatchObject({ billing_enabled: false, plan: { id: "unlimited", name: "Self-hosted (unlimited)" } });

    const sub = (await call("GET", "/api/v1/billing/subscription")).body;
    expect(sub).toMatchObject({ billing_enabled: false, status: "active", banner: null, lines: [], plan: { id: "unlimited", name: ent.plan.name, line_id: null } });
    for (const [quota, limit] of Object.entries(sub.plan.included_quotas)) expect([quota, limit]).toEqual([quota, ent.contributions[quota].plan]);
    expect(sub.plan.included_quotas.monitors).toBe(ent.limits.monitors);

    const plans = (await call("GET", "/api/v1/billing/plans")).body;
    expect(plans.plans.map((p: { id: string }) => p.id)).toEqual(["unlimited"]);
    expect(plans.plans[0]).toMatchObject({ name: ent.plan.name, monthly_price_cents: 0, quotas: sub.plan.included_quotas });
    expect(plans.addons).toEqual([]);

    expect((await call("GET", "/api/v1/org")).body.plan).toBe("unlimited");
    expect((await call("GET", "/api/v1/orgs")).body.data.map((o: { plan: string }) => o.plan)).toEqual(["unlimited"]);
    expect((await call("POST", "/api/v1/orgs", { name: "Another" })).body.plan).toBe("unlimited");
    expect((await call("GET", "/api/v1/billing/addons/active")).body.data).toEqual([]);
  });
});
