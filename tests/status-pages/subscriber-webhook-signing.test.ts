/**
 * Issue 20: status-page webhook notices are signed the Standard Webhooks way, like webhook alert
 * channels, with a secret per subscription that the API answers once. A real loopback receiver checks
 * every notice with the standardwebhooks library itself, as a subscriber's receiver would.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { Webhook } from "standardwebhooks";
import { client, startTestApi, type TestApi } from "../support/api.ts";
import { createTestDatabase, type TestDatabase } from "../support/db.ts";
import { eventually, orgWithPage } from "./support.ts";

let db: TestDatabase;
let api: TestApi;
let receiver: ReturnType<typeof Bun.serve>;
const received: { path: string; raw: string; headers: Record<string, string> }[] = [];
const answers = new Map<string, number[]>();

beforeAll(async () => {
  db = await createTestDatabase();
  api = await startTestApi({ ALLOW_PRIVATE_IPS: "true" }, db);
  receiver = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: async (req) => {
      const path = new URL(req.url).pathname;
      received.push({ path, raw: await req.text(), headers: Object.fromEntries(req.headers) });
      return new Response("", { status: answers.get(path)?.shift() ?? 200 });
    },
  });
}, 60_000);
afterAll(async () => {
  await api?.stop();
  receiver?.stop(true);
  await db?.drop();
}, 60_000);

const hookUrl = (path: string) => `http://127.0.0.1:${receiver.port}${path}`;
const at = (path: string) => received.filter((r) => r.path === path);
const verify = (secret: string, r: { raw: string; headers: Record<string, string> }) => new Webhook(secret).verify(r.raw, r.headers) as { type: string; incident: { title: string } };

async function incident(p: Awaited<ReturnType<typeof orgWithPage>>, title: string) {
  const created = await p.call("POST", "/api/v1/incidents", { title, impact: "minor", message: "Looking into it", component_ids: [p.componentIds[0]] });
  expect(created.status).toBe(201);
  return created.body.id as string;
}

describe("signed status-page webhook notices", () => {
  it("answer the subscription's secret once, and sign every notice with it so the receiver's Standard Webhooks library verifies it", async () => {
    const p = await orgWithPage(api);
    const added = await p.call("POST", `/api/v1/status-pages/${p.pageId}/subscribers`, { webhook_url: hookUrl("/signed") });
    expect(added.status).toBe(201);
    const secret: string = added.body.webhook_secret;
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);

    // Shown once: never in the list, and not in clear in the database.
    const listed = await p.call("GET", `/api/v1/status-pages/${p.pageId}/subscribers`);
    expect(JSON.stringify(listed.body)).not.toContain(secret.slice(6));
    expect(listed.body.data[0]).not.toHaveProperty("webhook_secret");
    const [row] = await db.sql`select * from status_page_subscribers where id = ${added.body.id}`;
    expect(JSON.stringify(row)).not.toContain(secret.slice(6));

    await incident(p, "Signed notice");
    const [notice] = await eventually(async () => at("/signed"), (r) => r.length === 1, 10_000);
    expect(notice!.headers["webhook-id"]).toMatch(/\S/);
    expect(Math.abs(Number(notice!.headers["webhook-timestamp"]) - Date.now() / 1000)).toBeLessThan(30);
    expect(notice!.headers["webhook-signature"]).toMatch(/^v1,[A-Za-z0-9+/=]+$/);
    expect(verify(secret, notice!)).toMatchObject({ type: "incident.created", incident: { title: "Signed notice" } });

    // Another secret, or a body changed on the way, does not verify.
    expect(() => verify(`whsec_${Buffer.alloc(24, 7).toString("base64")}`, notice!)).toThrow();
    expect(() => verify(secret, { ...notice!, raw: notice!.raw.replace("Signed notice", "Forged notice") })).toThrow();
  });

  it("keep the webhook-id of a notice on its retry, each attempt signed afresh", async () => {
    const p = await orgWithPage(api);
    const added = await p.call("POST", `/api/v1/status-pages/${p.pageId}/subscribers`, { webhook_url: hookUrl("/retried") });
    answers.set("/retried", [503]);
    const incidentId = await incident(p, "Retried notice");
    await eventually(async () => at("/retried"), (r) => r.length === 1, 10_000);
    // The dispatcher records the failure (and its backoff) after the receiver answered: wait for that, then
    // skip the backoff wait: due now, and wake the dispatchers.
    await eventually(async () => db.sql`select 1 from subscriber_deliveries where incident_id = ${incidentId} and last_error is not null`, (r) => r.length > 0, 10_000);
    await db.sql`update subscriber_deliveries set next_attempt_at = now() where incident_id = ${incidentId}`;
    await db.sql`select pg_notify('wp_subscriber_deliveries', '')`;
    const [first, second] = await eventually(async () => at("/retried"), (r) => r.length === 2, 10_000);
    expect(second!.headers["webhook-id"]).toBe(first!.headers["webhook-id"]);
    for (const attempt of [first!, second!]) expect(verify(added.body.webhook_secret, attempt).incident.title).toBe("Retried notice");
  });

  it("issue a new secret when the same URL is added again, and sign with both until the next", async () => {
    const p = await orgWithPage(api);
    const first = await p.call("POST", `/api/v1/status-pages/${p.pageId}/subscribers`, { webhook_url: hookUrl("/rotated") });
    const again = await p.call("POST", `/api/v1/status-pages/${p.pageId}/subscribers`, { webhook_url: hookUrl("/rotated") });
    expect(again.status).toBe(201);
    expect(again.body.id).toBe(first.body.id);
    expect(again.body.webhook_secret).toMatch(/^whsec_/);
    expect(again.body.webhook_secret).not.toBe(first.body.webhook_secret);

    await incident(p, "During the rotation");
    const [notice] = await eventually(async () => at("/rotated"), (r) => r.length === 1, 10_000);
    expect(notice!.headers["webhook-signature"]!.split(" ")).toHaveLength(2);
    expect(verify(again.body.webhook_secret, notice!).incident.title).toBe("During the rotation");
    expect(verify(first.body.webhook_secret, notice!).incident.title).toBe("During the rotation");

    // A third add drops the first secret.
    const third = await p.call("POST", `/api/v1/status-pages/${p.pageId}/subscribers`, { webhook_url: hookUrl("/rotated") });
    await incident(p, "After the rotation");
    const [, later] = await eventually(async () => at("/rotated"), (r) => r.length === 2, 10_000);
    expect(verify(third.body.webhook_secret, later!).incident.title).toBe("After the rotation");
    expect(verify(again.body.webhook_secret, later!).incident.title).toBe("After the rotation");
    expect(() => verify(first.body.webhook_secret, later!)).toThrow();
  });

  it("answer no secret for an email subscriber, and send a subscription of an earlier release (no secret) unsigned", async () => {
    const p = await orgWithPage(api);
    const email = await p.call("POST", `/api/v1/status-pages/${p.pageId}/subscribers`, { email: "reader@example.test" });
    expect(email.status).toBe(201);
    expect(email.body.webhook_secret).toBeNull();

    const old = await p.call("POST", `/api/v1/status-pages/${p.pageId}/subscribers`, { webhook_url: hookUrl("/earlier") });
    await db.sql`update status_page_subscribers set webhook_secret_enc = null, webhook_previous_secret_enc = null where id = ${old.body.id}`;
    await incident(p, "Unsigned notice");
    const [notice] = await eventually(async () => at("/earlier"), (r) => r.length === 1, 10_000);
    expect(notice!.headers["webhook-id"]).toMatch(/\S/);
    expect(notice!.headers["webhook-signature"]).toBeUndefined();
    expect(JSON.parse(notice!.raw).incident.title).toBe("Unsigned notice");
  });

  it("refuses a bad subscriber body with the error body, never a 500", async () => {
    const p = await orgWithPage(api);
    for (const body of [{}, { email: "a@b.test", webhook_url: hookUrl("/x") }, { webhook_url: "ftp://example.test/hook" }]) {
      const res = await p.call("POST", `/api/v1/status-pages/${p.pageId}/subscribers`, body);
      expect(res.status).toBe(400);
      expect(Object.keys(res.body).sort()).toEqual(["code", "details", "error"]);
    }
    expect((await client(api.url)("POST", `/api/v1/status-pages/${p.pageId}/subscribers`, { webhook_url: hookUrl("/anon") })).status).toBe(401);
  });
});
