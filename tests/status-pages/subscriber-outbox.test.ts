/**
 * Incident notices to subscribers are rows written with the incident change: they survive the API
 * process going away, transient failures are retried, permanent ones are given up, and an
 * unsubscribe before sending cancels them. A subscriber gets its notices in the order they were written.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { createIncident, postUpdate, resolveIncident } from "../../domain/incidents/service.ts";
import { client, startTestApi, type TestApi } from "../support/api.ts";
import { createTestDatabase, type TestDatabase } from "../support/db.ts";
import { eventually, orgWithPage } from "./support.ts";

let db: TestDatabase;
let api: TestApi;
const hits: { path: string; body: any }[] = [];
const answers = new Map<string, number[]>();
let hooks: ReturnType<typeof Bun.serve>;

beforeAll(async () => {
  db = await createTestDatabase();
  api = await startTestApi({ ALLOW_PRIVATE_IPS: "true" }, db);
  hooks = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: async (req) => {
      const path = new URL(req.url).pathname;
      hits.push({ path, body: await req.json() });
      return new Response("", { status: answers.get(path)?.shift() ?? 200 });
    },
  });
}, 60_000);
afterAll(async () => {
  await api.stop();
  hooks.stop(true);
  await db.drop();
}, 60_000);

const hitsAt = (path: string) => hits.filter((h) => h.path === path);
const rowsOf = async (incidentId: string) => [...(await db.sql`select status, attempts, last_error from subscriber_deliveries where incident_id = ${incidentId}`)];
const hookUrl = (path: string) => `http://127.0.0.1:${hooks.port}${path}`;

async function pageWithWebhook(path: string) {
  const p = await orgWithPage(api);
  expect((await p.call("POST", `/api/v1/status-pages/${p.pageId}/subscribers`, { webhook_url: hookUrl(path) })).status).toBe(201);
  return p;
}

describe("subscriber notices (outbox)", () => {
  it("are written with the incident and sent by an API process started afterwards", async () => {
    const p = await pageWithWebhook("/later");
    await api.stop(); // no process is sending now
    const actor = { orgId: p.org.org_id, userId: p.org.user_id, identity: {} as never, ip: "127.0.0.1" };
    const incident = await createIncident({ sql: db.sql, actor }, { title: "Written while no API ran", impact: "minor", message: "Looking", component_ids: [p.componentIds[0]!] });
    expect(await rowsOf(incident.id)).toEqual([{ status: "pending", attempts: 0, last_error: null }]);
    api = await startTestApi({ ALLOW_PRIVATE_IPS: "true" }, db);
    await eventually(async () => hitsAt("/later"), (h) => h.length === 1, 10_000);
    await Bun.sleep(300);
    expect(hitsAt("/later")).toHaveLength(1);
    expect(hitsAt("/later")[0]!.body).toMatchObject({ type: "incident.created", incident: { id: incident.id, title: "Written while no API ran" }, update: { message: "Looking" } });
    expect(await rowsOf(incident.id)).toEqual([{ status: "sent", attempts: 1, last_error: null }]);
  });

  it("retry a receiver's transient failure and deliver once", async () => {
    const p = await pageWithWebhook("/flaky");
    answers.set("/flaky", [503]);
    const created = await p.call("POST", "/api/v1/incidents", { title: "Flaky receiver", impact: "minor", message: "Hm", component_ids: [p.componentIds[0]] });
    const [first] = await eventually(() => rowsOf(created.body.id), (r) => r[0]?.last_error != null, 10_000);
    expect(first).toMatchObject({ status: "pending", attempts: 1 });
    expect(first!.last_error).toContain("HTTP 503");
    // Skip the backoff wait: due now, and wake the dispatchers.
    await db.sql`update subscriber_deliveries set next_attempt_at = now() where incident_id = ${created.body.id}`;
    await db.sql`select pg_notify('wp_subscriber_deliveries', '')`;
    await eventually(() => rowsOf(created.body.id), (r) => r[0]?.status === "sent", 10_000);
    expect(await rowsOf(created.body.id)).toEqual([{ status: "sent", attempts: 2, last_error: null }]);
    expect(hitsAt("/flaky")).toHaveLength(2);
  });

  it("reach a subscriber in the order they were written, a retried one holding back the later ones", async () => {
    const p = await pageWithWebhook("/ordered");
    await api.stop(); // all three notices are due when the next process starts, and go in one pass
    const ctx = { sql: db.sql, actor: { orgId: p.org.org_id, userId: p.org.user_id, identity: {} as never, ip: "127.0.0.1" } };
    const incident = await createIncident(ctx, { title: "In order", impact: "minor", message: "Looking", component_ids: [p.componentIds[0]!] });
    await postUpdate(ctx, incident.id, { status: "monitoring", message: "Fix out" });
    await resolveIncident(ctx, incident.id, "Fixed");
    answers.set("/ordered", [503]); // the first notice's first attempt fails
    api = await startTestApi({ ALLOW_PRIVATE_IPS: "true" }, db);
    await eventually(async () => hitsAt("/ordered"), (h) => h.length >= 1, 10_000);
    await Bun.sleep(500);
    expect(hitsAt("/ordered").map((h) => h.body.type)).toEqual(["incident.created"]);
    await db.sql`update subscriber_deliveries set next_attempt_at = now() where incident_id = ${incident.id} and status = 'pending'`;
    await db.sql`select pg_notify('wp_subscriber_deliveries', '')`;
    await eventually(async () => hitsAt("/ordered"), (h) => h.length === 4, 10_000);
    expect(hitsAt("/ordered").map((h) => h.body.type)).toEqual(["incident.created", "incident.created", "incident.updated", "incident.resolved"]);
  });

  it("after one given up, go on with the subscriber's next", async () => {
    const p = await pageWithWebhook("/gave-up");
    await api.stop();
    const ctx = { sql: db.sql, actor: { orgId: p.org.org_id, userId: p.org.user_id, identity: {} as never, ip: "127.0.0.1" } };
    const incident = await createIncident(ctx, { title: "Gone, then back", impact: "minor", message: "Looking", component_ids: [p.componentIds[0]!] });
    await postUpdate(ctx, incident.id, { status: "monitoring", message: "Fix out" });
    answers.set("/gave-up", [410]);
    api = await startTestApi({ ALLOW_PRIVATE_IPS: "true" }, db);
    await eventually(async () => hitsAt("/gave-up"), (h) => h.length === 2, 10_000);
    expect(hitsAt("/gave-up").map((h) => h.body.type)).toEqual(["incident.created", "incident.updated"]);
    // A notice is marked sent once its answer is in, a moment after the receiver saw it (CI once read it pending).
    const statuses = await eventually(async () => (await rowsOf(incident.id)).map((r) => r.status).sort(), (s) => s.join() === "failed,sent", 10_000);
    expect(statuses).toEqual(["failed", "sent"]);
  });

  it("give up on a permanent failure without retrying", async () => {
    const p = await pageWithWebhook("/gone");
    answers.set("/gone", [410]);
    const created = await p.call("POST", "/api/v1/incidents", { title: "Receiver gone", impact: "minor", message: "Hm", component_ids: [p.componentIds[0]] });
    const [row] = await eventually(() => rowsOf(created.body.id), (r) => r[0]?.status === "failed", 10_000);
    expect(row).toMatchObject({ status: "failed", attempts: 1 });
    expect(row!.last_error).toContain("HTTP 410");
    expect(hitsAt("/gone")).toHaveLength(1);
  });

  it("are cancelled when the subscriber leaves before they are sent", async () => {
    const p = await pageWithWebhook("/leaving");
    await api.stop();
    const actor = { orgId: p.org.org_id, userId: p.org.user_id, identity: {} as never, ip: "127.0.0.1" };
    const incident = await createIncident({ sql: db.sql, actor }, { title: "Nobody left to tell", impact: "minor", message: "x", component_ids: [p.componentIds[0]!] });
    await db.sql`delete from status_page_subscribers where page_id = ${p.pageId}`;
    api = await startTestApi({ ALLOW_PRIVATE_IPS: "true" }, db);
    expect(await rowsOf(incident.id)).toEqual([]);
    await Bun.sleep(300);
    expect(hitsAt("/leaving")).toHaveLength(0);
  });

  it("go once to an address subscribed to several of the incident's pages", async () => {
    const a = await orgWithPage(api);
    const second = await a.call("POST", "/api/v1/status-pages", { name: "Second", slug: `s-${Date.now().toString(36)}` });
    for (const pageId of [a.pageId, second.body.id]) await a.call("POST", `/api/v1/status-pages/${pageId}/subscribers`, { webhook_url: hookUrl("/both") });
    const created = await a.call("POST", "/api/v1/incidents", { title: "Everywhere", impact: "major", message: "x", page_ids: [a.pageId, second.body.id] });
    await eventually(async () => hitsAt("/both"), (h) => h.length === 1, 10_000);
    await Bun.sleep(300);
    expect(hitsAt("/both")).toHaveLength(1);
    expect(await rowsOf(created.body.id)).toHaveLength(1);
  });

  it("keep a webhook subscriber's URL encrypted and masked (it may carry the receiver's token), and still deliver to it", async () => {
    const p = await orgWithPage(api);
    const url = hookUrl("/hooks/T000/B000/sub-url-token-secret?key=sub-query-secret");
    const added = await p.call("POST", `/api/v1/status-pages/${p.pageId}/subscribers`, { webhook_url: url });
    expect(added.status).toBe(201);
    const again = await p.call("POST", `/api/v1/status-pages/${p.pageId}/subscribers`, { webhook_url: url });
    expect(again.body.id).toBe(added.body.id);
    const listed = await p.call("GET", `/api/v1/status-pages/${p.pageId}/subscribers`);
    expect(listed.body.data).toHaveLength(1);
    const shown = JSON.stringify([added.body, listed.body]);
    expect(shown).not.toContain("token-secret");
    expect(shown).not.toContain("query-secret");
    expect(listed.body.data[0].webhook_url).toBe(`http://127.0.0.1:${hooks.port}/••••cret`);
    const [row] = await db.sql`select * from status_page_subscribers where id = ${added.body.id}`;
    expect(JSON.stringify(row)).not.toContain("token-secret");
    await p.call("POST", "/api/v1/incidents", { title: "Hooked", impact: "minor", message: "x", component_ids: [p.componentIds[0]] });
    expect(await eventually(async () => hitsAt("/hooks/T000/B000/sub-url-token-secret"), (h) => h.length === 1, 10_000)).toHaveLength(1);
  });

  it("are sealed from plaintext rows of earlier releases at start-up", async () => {
    const p = await orgWithPage(api);
    const added = await p.call("POST", `/api/v1/status-pages/${p.pageId}/subscribers`, { webhook_url: hookUrl("/legacy-plain-hook") });
    await db.sql`update status_page_subscribers set webhook_url = ${hookUrl("/legacy-plain-hook")}, webhook_url_enc = null, webhook_url_hash = null where id = ${added.body.id}`;
    expect((await p.call("GET", `/api/v1/status-pages/${p.pageId}/subscribers`)).body.data[0].webhook_url).toBe(`http://127.0.0.1:${hooks.port}/••••hook`);
    await api.stop();
    api = await startTestApi({ ALLOW_PRIVATE_IPS: "true" }, db);
    const [row] = await eventually(() => db.sql`select * from status_page_subscribers where id = ${added.body.id}`, (r) => r[0]?.webhook_url === null, 10_000);
    expect(JSON.stringify(row)).not.toContain("legacy-plain-hook");
    const call = client(api.url, { key: p.org.api_key });
    await call("POST", "/api/v1/incidents", { title: "Sealed", impact: "minor", message: "x", component_ids: [p.componentIds[0]] });
    expect(await eventually(async () => hitsAt("/legacy-plain-hook"), (h) => h.length === 1, 10_000)).toHaveLength(1);
  });
});
