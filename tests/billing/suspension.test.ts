import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { runBillingJobs } from "../../billing/jobs.ts";
import { customDomainsAllowed, reconcileSuspensions } from "../../billing/suspension.ts";
import type { Sql } from "../../db/client.ts";
import { newId, randomToken } from "../../core/ids.ts";
import { hashToken } from "../../core/crypto/secrets.ts";
import { type BillingStack, buy, insertMonitors, ownerOrg, startBillingStack } from "./support.ts";

let stack: BillingStack;
beforeAll(async () => {
  stack = await startBillingStack();
});
afterAll(() => stack.stop());

async function insertRunners(sql: Sql, orgId: string, n: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const id = newId("run");
    ids.push(id);
    await sql`insert into runners (id, org_id, name, token_hash, created_at) values (${id}, ${orgId}, ${`r${i}`}, ${hashToken(`rt_${randomToken(16)}`)}, ${new Date(Date.UTC(2026, 0, 1, 0, i))})`;
  }
  return ids;
}
const suspendedIds = async (sql: Sql, table: "monitors" | "runners", orgId: string) =>
  (await sql.unsafe<{ id: string }[]>(`select id from ${table} where org_id = $1 and suspended order by created_at`, [orgId])).map((r) => r.id);

describe("suspension of resources over quota (spec table)", () => {
  it("cancellation leaves usage above the cap: the newest excess is suspended, not deleted; runners on Free are all suspended; custom domains stop", async () => {
    const o = await ownerOrg(stack);
    await buy(stack, o.owner, { plan: "starter", cycle: "monthly" });
    const monitors = await insertMonitors(stack.api.sql, o.org_id, 24);
    const runners = await insertRunners(stack.api.sql, o.org_id, 1);
    expect(await customDomainsAllowed(stack.api.sql, o.org_id)).toBe(true);
    const line = (await o.owner("GET", "/api/v1/billing/subscription")).body.lines[0];
    await o.owner("POST", `/api/v1/billing/lines/${line.id}/cancel`);
    expect(await suspendedIds(stack.api.sql, "monitors", o.org_id)).toEqual([]);
    await stack.advance(32);
    expect((await o.key("GET", "/api/v1/entitlements")).body.plan.id).toBe("free");
    expect(await suspendedIds(stack.api.sql, "monitors", o.org_id)).toEqual(monitors.slice(20));
    expect(await suspendedIds(stack.api.sql, "runners", o.org_id)).toEqual(runners);
    expect(await customDomainsAllowed(stack.api.sql, o.org_id)).toBe(false);
    const [count] = await stack.api.sql`select count(*)::int as n from monitors where org_id = ${o.org_id}`;
    expect(count!.n).toBe(24);
    // Suspended monitors are not scheduled and hold no slot.
    const ent = (await o.key("GET", "/api/v1/entitlements")).body;
    expect(ent.usage.monitors).toEqual({ used: 20, limit: 20 });
    const view = (await o.key("GET", `/api/v1/monitors/${monitors[23]}`)).body;
    expect(view.suspended).toBe(true);
  });

  it("reactivates suspended resources once the quota covers them again (re-subscribe)", async () => {
    const o = await ownerOrg(stack);
    await insertMonitors(stack.api.sql, o.org_id, 22);
    await insertRunners(stack.api.sql, o.org_id, 1);
    await reconcileSuspensions(stack.api.sql, o.org_id);
    expect((await suspendedIds(stack.api.sql, "monitors", o.org_id)).length).toBe(2);
    expect((await suspendedIds(stack.api.sql, "runners", o.org_id)).length).toBe(1);
    await buy(stack, o.owner, { plan: "starter", cycle: "monthly" });
    expect(await suspendedIds(stack.api.sql, "monitors", o.org_id)).toEqual([]);
    expect(await suspendedIds(stack.api.sql, "runners", o.org_id)).toEqual([]);
  });

  it("reactivates automatically when usage falls back under the cap (the user deletes one)", async () => {
    const o = await ownerOrg(stack);
    const ids = await insertMonitors(stack.api.sql, o.org_id, 21);
    await reconcileSuspensions(stack.api.sql, o.org_id);
    expect(await suspendedIds(stack.api.sql, "monitors", o.org_id)).toEqual([ids[20]!]);
    expect((await o.key("DELETE", `/api/v1/monitors/${ids[0]}`)).status).toBe(204);
    await stack.jobs();
    expect(await suspendedIds(stack.api.sql, "monitors", o.org_id)).toEqual([]);
  });

  it("suspends monitors whose interval tier the new plan lacks (real-time checks after leaving Pro)", async () => {
    const o = await ownerOrg(stack);
    await buy(stack, o.owner, { plan: "pro", cycle: "monthly" });
    const realtime = await insertMonitors(stack.api.sql, o.org_id, 3, { interval: 30 });
    const standard = await insertMonitors(stack.api.sql, o.org_id, 3, { interval: 300, from: 10 });
    const line = (await o.owner("GET", "/api/v1/billing/subscription")).body.lines[0];
    await o.owner("POST", `/api/v1/billing/lines/${line.id}/cancel`);
    await stack.advance(32);
    expect(await suspendedIds(stack.api.sql, "monitors", o.org_id)).toEqual(realtime);
    expect(standard.length).toBe(3);
  });

  it("deletes what stayed suspended past the plan's grace period (Free: 3 days), and runners are revoked", async () => {
    const o = await ownerOrg(stack);
    const ids = await insertMonitors(stack.api.sql, o.org_id, 21);
    const [runner] = await insertRunners(stack.api.sql, o.org_id, 1);
    await reconcileSuspensions(stack.api.sql, o.org_id);
    await runBillingJobs(stack.api.sql, new Date(Date.now() + 2.9 * 86_400_000));
    expect((await stack.api.sql`select id from monitors where id = ${ids[20]!}`).length).toBe(1);
    await runBillingJobs(stack.api.sql, new Date(Date.now() + 3.1 * 86_400_000));
    expect((await stack.api.sql`select id from monitors where id = ${ids[20]!}`).length).toBe(0);
    expect((await stack.api.sql`select id from monitors where org_id = ${o.org_id}`).length).toBe(20);
    const [r] = await stack.api.sql`select revoked_at from runners where id = ${runner!}`;
    expect(r!.revoked_at).not.toBeNull();
  });

  it("keeps what a plan change suspends for the plan's whole grace period, counted on the provider's clock (the simulator's runs ahead)", async () => {
    const o = await ownerOrg(stack);
    await buy(stack, o.owner, { plan: "pro", cycle: "monthly" });
    const realtime = await insertMonitors(stack.api.sql, o.org_id, 2, { interval: 30 });
    await stack.advance(10); // the simulator's clock is now days ahead of the host's
    expect((await o.owner("POST", "/api/v1/billing/change-plan", { plan: "starter" })).status).toBe(200);
    await stack.jobs();
    expect(await suspendedIds(stack.api.sql, "monitors", o.org_id)).toEqual(realtime);
    await stack.advance(4);
    expect(await suspendedIds(stack.api.sql, "monitors", o.org_id)).toEqual(realtime);
    await stack.advance(2); // past Starter's 5 grace days
    expect(await suspendedIds(stack.api.sql, "monitors", o.org_id)).toEqual([]);
    expect((await stack.api.sql`select id from monitors where id = any(${realtime})`).length).toBe(0);
  });

  it("lists the suspended monitors on their own (GET /monitors?suspended=true), whatever their age", async () => {
    const o = await ownerOrg(stack);
    const ids = await insertMonitors(stack.api.sql, o.org_id, 22);
    await reconcileSuspensions(stack.api.sql, o.org_id);
    const suspended = await o.key("GET", "/api/v1/monitors?suspended=true&limit=1");
    expect(suspended.status).toBe(200);
    expect(suspended.body.pagination.total).toBe(2);
    expect(suspended.body.data.map((m: any) => m.id)).toEqual([ids[21]]);
    const active = await o.key("GET", "/api/v1/monitors?suspended=false&limit=100");
    expect(active.body.pagination.total).toBe(20);
    expect(active.body.data.every((m: any) => !m.suspended)).toBe(true);
  });

  it("suspends the newest self-hosted browser monitors over the self-hosted browser cap (Starter has none)", async () => {
    const o = await ownerOrg(stack, "pro");
    const [runner] = await insertRunners(stack.api.sql, o.org_id, 1);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const id = newId("mon");
      ids.push(id);
      await stack.api.sql`
        insert into monitors (id, org_id, name, type, config, interval_seconds, timeout_ms, regions, runner_ids, created_at)
        values (${id}, ${o.org_id}, ${`b${i}`}, 'browser_lite', ${stack.api.sql.json({ url: "https://example.test/" })}, 300, 10000, ${[]}, ${[runner!]}, ${new Date(Date.UTC(2026, 0, 1, 1, i))})`;
    }
    await reconcileSuspensions(stack.api.sql, o.org_id);
    // Pro includes 2 self-hosted browser slots: the newest of three is suspended; cloud Lite slots are not used.
    expect(await suspendedIds(stack.api.sql, "monitors", o.org_id)).toEqual([ids[2]!]);
    await stack.api.sql`update organisations set plan_id = 'starter' where id = ${o.org_id}`;
    await reconcileSuspensions(stack.api.sql, o.org_id);
    expect(await suspendedIds(stack.api.sql, "monitors", o.org_id)).toEqual(ids);
    expect((await o.key("GET", "/api/v1/entitlements")).body.usage.self_hosted_browser).toEqual({ used: 0, limit: 0 });
  });

  it("copes with a resource table that does not exist yet (status pages)", async () => {
    const o = await ownerOrg(stack);
    const result = await reconcileSuspensions(stack.api.sql, o.org_id);
    expect(result).toEqual({ suspended: {}, reactivated: {} });
    expect((await o.key("GET", "/api/v1/entitlements")).body.usage.status_pages).toEqual({ used: 0, limit: 1 });
  });
});
