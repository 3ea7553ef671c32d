import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { Webhook } from "standardwebhooks";
import { startHttpReceiver, type HttpReceiver } from "../../../alerting/channels/testing.ts";
import { client, makeOrg, startTestApi, type TestApi } from "../../../tests/support/api.ts";

let api: TestApi;
let receiver: HttpReceiver;

beforeAll(async () => {
  api = await startTestApi({ ALLOW_PRIVATE_IPS: "true" });
  receiver = await startHttpReceiver();
}, 60_000);
afterAll(async () => {
  await receiver.close();
  await api.stop();
}, 60_000);

async function org(plan = "free") {
  const o = await makeOrg(api.sql, plan);
  return { ...o, call: client(api.url, { key: o.api_key }) };
}

const oldSecret = `whsec_${Buffer.from("the first signing key, 32 bytes!").toString("base64")}`;
const newSecret = `whsec_${Buffer.from("the second signing key, 32 bytes").toString("base64")}`;

/** A receiver's check, with the standardwebhooks library. */
function verifies(r: { body: string; headers: Headers }, secret: string, options?: { format: "raw" }): boolean {
  try {
    new Webhook(secret, options).verify(r.body, Object.fromEntries(r.headers));
    return true;
  } catch {
    return false;
  }
}

const webhook = (secret = "a-very-long-signing-secret-1234") => ({ name: "Ops hook", type: "webhook", config: { url: `${receiver.url}/hook`, secret } });

describe("/alert-channels", () => {
  it("creates a channel, masks its secrets and stores them encrypted", async () => {
    const { call, org_id } = await org();
    const res = await call("POST", "/api/v1/alert-channels", webhook());
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ name: "Ops hook", type: "webhook", enabled: true, config: { url: "••••hook", secret: "••••1234" } });
    const [row] = await api.sql`select config_enc from alert_channels where org_id = ${org_id}`;
    expect(row!.config_enc).not.toContain("signing-secret");
    expect(row!.config_enc).not.toContain("/hook");
    const got = await call("GET", `/api/v1/alert-channels/${res.body.id}`);
    expect(got.body.config.secret).toBe("••••1234");
  });

  it("never shows a credential a webhook URL carries (path or query token) and keeps it when the mask comes back", async () => {
    const { call } = await org();
    const url = `${receiver.url}/hooks/catch/path-token-secret?token=query-token-secret`;
    const res = await call("POST", "/api/v1/alert-channels", { name: "Zap", type: "webhook", config: { url, headers: { "X-Api-Key": "header-secret-value" } } });
    expect(res.status).toBe(201);
    const shown = JSON.stringify([res.body, (await call("GET", `/api/v1/alert-channels/${res.body.id}`)).body, (await call("GET", "/api/v1/alert-channels")).body]);
    for (const secret of ["path-token-secret", "query-token-secret", "header-secret-value"]) expect(shown).not.toContain(secret);
    const kept = await call("PATCH", `/api/v1/alert-channels/${res.body.id}`, { config: res.body.config });
    expect(kept.status).toBe(200);
    receiver.requests.length = 0;
    expect((await call("POST", `/api/v1/alert-channels/${res.body.id}/test`)).body.ok).toBe(true);
    expect(receiver.last().path).toBe("/hooks/catch/path-token-secret?token=query-token-secret");
    expect(receiver.last().headers.get("x-api-key")).toBe("header-secret-value");
  });

  it("rejects an invalid config with the path of the problem", async () => {
    const { call } = await org();
    const res = await call("POST", "/api/v1/alert-channels", { name: "x", type: "webhook", config: { url: "not a url" } });
    expect(res.status).toBe(400);
    expect(res.body.details.issues.map((i: { path: string }) => i.path)).toEqual(["body.config.url"]);
    // Dotted like every other issue path (docs/api-conventions.md), so the dashboard's form puts it on its field.
    const nested = await call("POST", "/api/v1/alert-channels", { name: "x", type: "webhook", config: { url: "https://example.com/h", headers: { "X-A": 1 } } });
    expect(nested.body.details.issues.map((i: { path: string }) => i.path)).toEqual(["body.config.headers.X-A"]);
    const patched = await call("POST", "/api/v1/alert-channels", { name: "Mail", type: "email", config: { to: ["ops@example.com"] } });
    const bad = await call("PATCH", `/api/v1/alert-channels/${patched.body.id}`, { config: { to: ["not-an-address"] } });
    expect(bad.status).toBe(400);
    expect(bad.body.details.issues.map((i: { path: string }) => i.path)).toEqual(["body.config.to"]);
    const unknown = await call("POST", "/api/v1/alert-channels", { name: "x", type: "carrier-pigeon", config: {} });
    expect(unknown.status).toBe(400);
  });

  it("keeps a masked secret sent back in PATCH and replaces a new one", async () => {
    const { call, org_id } = await org();
    const { body: created } = await call("POST", "/api/v1/alert-channels", webhook());
    const kept = await call("PATCH", `/api/v1/alert-channels/${created.id}`, { name: "Renamed", config: created.config });
    expect(kept.status).toBe(200);
    expect(kept.body.name).toBe("Renamed");
    receiver.requests.length = 0;
    const sent = await call("POST", `/api/v1/alert-channels/${created.id}/test`);
    expect(sent.body.ok).toBe(true);
    // The signature proves the real secret was kept, not the mask: a receiver verifies it with the standardwebhooks library.
    const r = receiver.last();
    expect(r.headers.get("webhook-signature")).toBeTruthy();
    expect(verifies(r, "a-very-long-signing-secret-1234", { format: "raw" })).toBe(true);
    const changed = await call("PATCH", `/api/v1/alert-channels/${created.id}`, { config: { url: created.config.url, secret: "another-long-secret-abcd" } });
    expect(changed.body.config.secret).toBe("••••abcd");
    void org_id;
  });

  it("rotates a secret: both sign until the previous one is removed, and both stay masked and encrypted", async () => {
    const { call, org_id } = await org();
    const { body: created } = await call("POST", "/api/v1/alert-channels", webhook(oldSecret));
    // As the dashboard would: the new secret, and the current one's mask as it was shown.
    const rotating = await call("PATCH", `/api/v1/alert-channels/${created.id}`, { config: { url: created.config.url, secret: newSecret, previous_secret: created.config.secret } });
    expect(rotating.status).toBe(200);
    expect(rotating.body.config).toEqual({ url: "••••hook", secret: `••••${newSecret.slice(-4)}`, previous_secret: `••••${oldSecret.slice(-4)}` });
    const [row] = await api.sql`select config_enc from alert_channels where org_id = ${org_id}`;
    for (const s of [oldSecret, newSecret]) expect(row!.config_enc).not.toContain(s.slice(6));
    receiver.requests.length = 0;
    expect((await call("POST", `/api/v1/alert-channels/${created.id}/test`)).body.ok).toBe(true);
    expect(receiver.last().headers.get("webhook-signature")!.split(" ")).toHaveLength(2);
    expect(verifies(receiver.last(), oldSecret)).toBe(true);
    expect(verifies(receiver.last(), newSecret)).toBe(true);
    // Rotation finished: the receivers have the new secret, the previous one is dropped.
    const done = await call("PATCH", `/api/v1/alert-channels/${created.id}`, { config: { url: rotating.body.config.url, secret: rotating.body.config.secret } });
    expect(done.body.config.previous_secret).toBeUndefined();
    expect((await call("POST", `/api/v1/alert-channels/${created.id}/test`)).body.ok).toBe(true);
    expect(verifies(receiver.last(), newSecret)).toBe(true);
    expect(verifies(receiver.last(), oldSecret)).toBe(false);
  });

  it("test-sends a test event and returns every attempt, including failures", async () => {
    const { call } = await org();
    const { body: created } = await call("POST", "/api/v1/alert-channels", webhook());
    receiver.requests.length = 0;
    const ok = await call("POST", `/api/v1/alert-channels/${created.id}/test`);
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ ok: true, attempts: [{ attempt: 1, ok: true, status: 200 }] });
    expect(receiver.last().json().kind).toBe("test");
    receiver.failNext("permanent");
    const bad = await call("POST", `/api/v1/alert-channels/${created.id}/test`);
    expect(bad.body.ok).toBe(false);
    expect(bad.body.attempts).toHaveLength(1);
    expect(bad.body.attempts[0]).toMatchObject({ ok: false, status: 400, permanent: true });
    receiver.failNext("retryable");
    const retried = await call("POST", `/api/v1/alert-channels/${created.id}/test`);
    expect(retried.body.ok).toBe(true);
    expect(retried.body.attempts.map((a: { ok: boolean }) => a.ok)).toEqual([false, true]);
  });

  it("leaves the test send to the alerting role: 503 no_alerting and nothing sent when no alerting process is connected", async () => {
    // A second API on the same database and its own bus, with no alerting role (and no worker) on that bus.
    const lonely = await startTestApi({ ALLOW_PRIVATE_IPS: "true" }, api.db, undefined, { alerting: false, workerRegions: [] });
    try {
      const o = await makeOrg(api.sql);
      const call = client(lonely.url, { key: o.api_key });
      const { body: created } = await call("POST", "/api/v1/alert-channels", webhook());
      receiver.requests.length = 0;
      const res = await call("POST", `/api/v1/alert-channels/${created.id}/test`);
      expect(res.status).toBe(503);
      expect(res.headers.get("retry-after")).toBe("5");
      expect(res.body).toMatchObject({ code: "SERVICE_UNAVAILABLE", details: { reason: "no_alerting" } });
      expect(receiver.requests).toHaveLength(0);
      // Another organisation's channel is still a 404, before anything is asked of alerting.
      expect((await client(api.url, { key: (await makeOrg(api.sql)).api_key })("POST", `/api/v1/alert-channels/${created.id}/test`)).status).toBe(404);
    } finally {
      await lonely.stop();
    }
  });

  it("enforces the plan's channel quota (Free 5)", async () => {
    const { call } = await org("free");
    for (let i = 0; i < 5; i++) expect((await call("POST", "/api/v1/alert-channels", webhook())).status).toBe(201);
    const over = await call("POST", "/api/v1/alert-channels", webhook());
    expect(over.status).toBe(403);
    expect(over.body.code).toBe("ENTITLEMENT_REQUIRED");
    expect(over.body.details).toMatchObject({ entitlement: "alert_channels", limit: 5 });
  });

  it("lists, deletes, and answers 404 for another organisation's channel", async () => {
    const a = await org();
    const b = await org();
    const { body: created } = await a.call("POST", "/api/v1/alert-channels", webhook());
    expect((await b.call("GET", `/api/v1/alert-channels/${created.id}`)).status).toBe(404);
    expect((await b.call("DELETE", `/api/v1/alert-channels/${created.id}`)).status).toBe(404);
    const list = await a.call("GET", "/api/v1/alert-channels?limit=10");
    expect(list.body.pagination.total).toBe(1);
    expect((await a.call("DELETE", `/api/v1/alert-channels/${created.id}`)).status).toBe(204);
    expect((await a.call("GET", `/api/v1/alert-channels/${created.id}`)).status).toBe(404);
  });

  it("keeps a config key: unique per organisation (409), kept across a rename, cleared with null, free in another organisation", async () => {
    const a = await org();
    const b = await org();
    const created = await a.call("POST", "/api/v1/alert-channels", { ...webhook(), key: "ops-hook" });
    expect(created.status).toBe(201);
    expect(created.body.key).toBe("ops-hook");
    const plain = await a.call("POST", "/api/v1/alert-channels", webhook());
    expect(plain.body.key).toBeNull();
    const taken = await a.call("POST", "/api/v1/alert-channels", { ...webhook(), key: "ops-hook" });
    expect(taken.status).toBe(409);
    expect(taken.body).toMatchObject({ code: "CONFLICT", details: { key: "ops-hook" } });
    expect((await a.call("PATCH", `/api/v1/alert-channels/${plain.body.id}`, { key: "ops-hook" })).status).toBe(409);
    expect((await a.call("POST", "/api/v1/alert-channels", { ...webhook(), key: "Not A Key" })).status).toBe(400);
    // A key of a config file with a project: <project>/<key>.
    expect((await a.call("POST", "/api/v1/alert-channels", { ...webhook(), key: `${"p".repeat(24)}/ops-hook` })).body.key).toBe(`${"p".repeat(24)}/ops-hook`);
    for (const bad of ["a.b/ops-hook", `${"p".repeat(25)}/ops-hook`, "a/b/c"]) expect((await a.call("POST", "/api/v1/alert-channels", { ...webhook(), key: bad })).status).toBe(400);
    const renamed = await a.call("PATCH", `/api/v1/alert-channels/${created.body.id}`, { name: "Renamed" });
    expect(renamed.body).toMatchObject({ name: "Renamed", key: "ops-hook" });
    expect((await a.call("PATCH", `/api/v1/alert-channels/${created.body.id}`, { key: null })).body.key).toBeNull();
    expect((await a.call("PATCH", `/api/v1/alert-channels/${plain.body.id}`, { key: "ops-hook" })).body.key).toBe("ops-hook");
    expect((await b.call("POST", "/api/v1/alert-channels", { ...webhook(), key: "ops-hook" })).status).toBe(201);
  });

  it("links a test notification to a dashboard screen that exists (the channels screen)", async () => {
    // The dashboard has no /alert-channels/:id route: a link there opened "Page not found".
    const { call } = await org();
    const created = (await call("POST", "/api/v1/alert-channels", webhook())).body;
    receiver.requests.length = 0;
    expect((await call("POST", `/api/v1/alert-channels/${created.id}/test`)).body.ok).toBe(true);
    const body = JSON.parse(receiver.last().body);
    expect(new URL(body.links.monitor).pathname).toBe("/alert-channels");
  });
});
