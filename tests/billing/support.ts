import { runBillingJobs } from "../../billing/jobs.ts";
import { providerFromConfig } from "../../billing/provider/from-config.ts";
import { startBillingSimulator, type BillingSimulator } from "../../billing/simulator/server.ts";
import { simulatorPrices } from "../../billing/simulator/prices.ts";
import type { Sql } from "../../db/client.ts";
import { newId } from "../../core/ids.ts";
import { client, makeOrg, signUp, startTestApi, type TestApi } from "../support/api.ts";
import { createTestDatabase } from "../support/db.ts";
import { loadApiConfig } from "../../api/config.ts";
import type { BillingDeps } from "../../billing/lifecycle.ts";
import type { Actor } from "../../domain/access/actor.ts";
import { silentLogger } from "../../core/log.ts";

export const SECRET = "whsec-test-0123456789";

export interface BillingStack {
  api: TestApi;
  sim: BillingSimulator;
  /** Runs the billing jobs at the simulator's clock, with the API's provider (mail is queued in the outbox). */
  jobs(): Promise<{ ran: number; failed: number }>;
  /** Moves the simulator's clock, lets its renewals' webhooks land, then runs the jobs. */
  advance(days: number): Promise<void>;
  sim$(method: string, path: string, body?: unknown): Promise<any>;
  /** What the API's billing services use, for calls at a chosen instant. */
  billing: BillingDeps;
  stop(): Promise<void>;
}

/** An API on its own database wired to a simulator; webhooks go to the API's real endpoint. */
export async function startBillingStack(env: Record<string, string> = {}): Promise<BillingStack> {
  const db = await createTestDatabase();
  const sim = startBillingSimulator({ webhookUrl: "http://127.0.0.1:9/unset", secret: SECRET, prices: await simulatorPrices(db.sql) });
  const config = { PADDLE_API_URL: sim.url, PADDLE_API_KEY: "sim-key", PADDLE_WEBHOOK_SECRETS: SECRET, ...env };
  const api = await startTestApi(config, db);
  sim.setWebhookUrl(`${api.url}/api/v1/billing/webhooks/paddle`);
  const provider = providerFromConfig(loadApiConfig({ DATABASE_URL: db.url, ...config }));
  const sim$ = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${sim.url}${path}`, { method, headers: { "content-type": "application/json", authorization: "Bearer sim-key" }, body: body === undefined ? undefined : JSON.stringify(body) });
    return res.json();
  };
  const jobs = () => runBillingJobs(db.sql, sim.state.now(), { provider });
  return {
    api,
    sim,
    jobs,
    sim$,
    billing: { sql: db.sql, provider, log: silentLogger },
    async advance(days) {
      await sim$("POST", "/sim/advance", { days });
      await sim.drain();
      await jobs();
      await sim.drain();
      // Reminders are queued by the jobs; the test API's outbox deliverer sends them.
      await api.flushMail();
    },
    async stop() {
      await sim.stop();
      await api.stop();
      await db.drop();
    },
  };
}

/** A new organisation whose owner signs in with a session (billing:manage is owner-only, never on keys). */
export async function ownerOrg(stack: BillingStack, plan = "free") {
  const o = await makeOrg(stack.api.sql, plan);
  const res = await fetch(`${stack.api.url}/api/v1/auth/signin`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email: o.email, password: o.password }),
  });
  if (res.status !== 200) throw new Error(`signin failed ${res.status} ${await res.text()}`);
  const body = (await res.json()) as { csrf_token: string };
  const cookie = res.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ");
  return { ...o, owner: client(stack.api.url, { cookie, csrf: body.csrf_token }), key: client(stack.api.url, { key: o.api_key }) };
}

export { signUp };

/** Inserts monitors directly (fast fixtures); `createdAt` spreads them in time, oldest first. */
export async function insertMonitors(sql: Sql, orgId: string, n: number, opts: { type?: string; interval?: number; from?: number } = {}): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const id = newId("mon");
    ids.push(id);
    const created = new Date(Date.UTC(2026, 0, 1) + ((opts.from ?? 0) + i) * 60_000);
    await sql`
      insert into monitors (id, org_id, name, type, config, interval_seconds, timeout_ms, regions, created_at)
      values (${id}, ${orgId}, ${`m${i}`}, ${opts.type ?? "http"}, ${sql.json({ url: "https://example.test/" })}, ${opts.interval ?? 300}, 10000, ${["local"]}, ${created})`;
  }
  return ids;
}

/** Checkout through the API, then "pay" on the simulator's hosted page; waits for the webhooks. */
export async function buy(stack: BillingStack, owner: ReturnType<typeof client>, body: Record<string, unknown>) {
  const res = await owner("POST", "/api/v1/billing/checkout", body);
  if (res.status !== 200) throw new Error(`checkout failed ${res.status} ${JSON.stringify(res.body)}`);
  if (res.body.checkout_url) {
    const pay = await fetch(`${res.body.checkout_url}/pay`, { method: "POST" });
    if (pay.status !== 200) throw new Error(`pay failed ${pay.status} ${await pay.text()}`);
  }
  await stack.sim.drain();
  return res.body as { checkout_url: string | null; transaction_id: string | null };
}

/** The owner as a service-level actor (for calls at the simulator's instant). */
export const actorOf = (o: { org_id: string; user_id: string }): Actor => ({ orgId: o.org_id, userId: o.user_id, identity: {} as Actor["identity"], ip: "127.0.0.1" });

/** Puts the simulator's clock at a fixed instant so periods and prorations are hand-computable. */
export function pinSimClock(stack: BillingStack, iso: string): void {
  stack.sim.state.offsetMs = Date.parse(iso) - Date.now();
}
