import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { startBillingJobs } from "../../billing/jobs.ts";
import { reconcileSuspensions } from "../../billing/suspension.ts";
import { listPendingJobs } from "../../db/queries/billing-jobs.ts";
import { type BillingStack, buy, insertMonitors, ownerOrg, startBillingStack } from "./support.ts";

let stack: BillingStack;
beforeAll(async () => {
  stack = await startBillingStack();
});
afterAll(() => stack.stop());

describe("billing jobs", () => {
  it("keeps time-driven transitions as rows, so a job loop started later (after a restart) still runs them", async () => {
    const o = await ownerOrg(stack);
    await buy(stack, o.owner, { plan: "starter", cycle: "monthly" });
    const line = (await o.owner("GET", "/api/v1/billing/subscription")).body.lines[0];
    await o.owner("POST", `/api/v1/billing/lines/${line.id}/cancel`);
    const pending = await listPendingJobs(stack.api.sql, o.org_id);
    expect(pending.map((j) => [j.kind, j.ref_id, j.due_at.toISOString()])).toEqual([["period_end", line.id, line.period_end]]);
    // A fresh loop whose clock is past the period end picks the row up.
    const loop = startBillingJobs({ sql: stack.api.sql, now: () => new Date(Date.parse(line.period_end) + 1000), intervalMs: 50 });
    for (let i = 0; i < 100 && (await listPendingJobs(stack.api.sql, o.org_id)).length > 0; i++) await Bun.sleep(20);
    await loop.stop();
    expect((await o.key("GET", "/api/v1/entitlements")).body.plan.id).toBe("free");
  });

  it("a suspended resource the user deletes is simply gone, and its suspension record is swept", async () => {
    const o = await ownerOrg(stack);
    const ids = await insertMonitors(stack.api.sql, o.org_id, 21);
    await reconcileSuspensions(stack.api.sql, o.org_id);
    expect((await o.key("DELETE", `/api/v1/monitors/${ids[20]}`)).status).toBe(204);
    await stack.jobs();
    const rows = await stack.api.sql`select 1 from billing_suspensions where org_id = ${o.org_id}`;
    expect(rows.length).toBe(0);
    const [n] = await stack.api.sql`select count(*)::int as n from monitors where org_id = ${o.org_id} and not suspended`;
    expect(n!.n).toBe(20);
  });
});
