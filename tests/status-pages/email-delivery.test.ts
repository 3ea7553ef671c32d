import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { startSmtpReceiver, type SmtpReceiver } from "../../alerting/channels/email/smtp-receiver.ts";
import { loadApiConfig } from "../../api/config.ts";
import { buildApiDeps, startApiServer, type ApiServer } from "../../api/server.ts";
import { createMemoryBus } from "../../core/bus/index.ts";
import { silentLogger } from "../../core/log.ts";
import { startTestAlertingRpc, TEST_SECRET_KEY, type TestApi, startOutboxes } from "../support/api.ts";
import { smtpSettingsOf } from "../../core/config/smtp.ts";
import { createSmtpMailer } from "../../core/mail/smtp-mailer.ts";
import { createTestDatabase, type TestDatabase } from "../support/db.ts";
import { eventually, orgWithPage } from "./support.ts";

let db: TestDatabase;
let server: ApiServer;
let smtp: SmtpReceiver;
let hookServer: ReturnType<typeof Bun.serve>;
const hooks: unknown[] = [];
let api: TestApi;
let outboxes: Awaited<ReturnType<typeof startOutboxes>>;

beforeAll(async () => {
  db = await createTestDatabase();
  smtp = await startSmtpReceiver();
  hookServer = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: async (req) => (hooks.push(await req.json()), new Response("ok")) });
  // The deployment's SMTP server comes from the environment, as in `bun run api` and `bun run start`.
  const config = loadApiConfig({
    DATABASE_URL: db.url,
    PORT: "0",
    HOST: "127.0.0.1",
    RATE_LIMIT_PER_IP: "100000",
    RATE_LIMIT_PER_ORG: "100000", RATE_LIMIT_PER_SESSION: "100000",
    LOG_LEVEL: "silent",
    ALLOW_PRIVATE_IPS: "true",
    SMTP_HOST: smtp.settings.host,
    SMTP_PORT: String(smtp.settings.port),
    SMTP_USER: smtp.settings.auth!.user,
    SMTP_PASSWORD: smtp.settings.auth!.pass,
    SMTP_FROM: smtp.settings.from,
  });
  server = await startApiServer(buildApiDeps({ sql: db.sql, config, log: silentLogger, secretKey: TEST_SECRET_KEY, bus: createMemoryBus() }));
  // Test sends go through the alerting role, which has the same SMTP settings from the environment.
  await startTestAlertingRpc(server, config);
  api = { url: server.url, sql: db.sql, db, server } as unknown as TestApi;
  // Mail and notices go out from the outboxes (the alerting role's work) over the deployment's SMTP.
  outboxes = await startOutboxes(server, createSmtpMailer(smtpSettingsOf(config)!));
});
afterAll(async () => {
  await server.stop(1000);
  await outboxes.stop();
  hookServer.stop(true);
  await smtp.close();
  await db.drop();
});

/** A header as the receiver parsed it (long values arrive folded over several lines). */
const header = (mail: { parsed: { headers: { key: string; value: string }[] } }, name: string) =>
  mail.parsed.headers.find((h) => h.key === name.toLowerCase())?.value.replace(/\s+/g, "") ?? null;

describe("incident email over SMTP", () => {
  it("reaches a real SMTP receiver with List-Unsubscribe headers and a working unsubscribe link", async () => {
    const { slug, call, componentIds, pageId } = await orgWithPage(api);
    const reader = `reader-${Date.now()}@example.test`;
    await fetch(`${server.url}/status/${slug}/subscribe`, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: new URLSearchParams({ email: reader }) });
    const confirmation = await eventually(async () => smtp.mails.find((m) => m.envelope.to.includes(reader)), (m) => !!m);
    const confirmLink = /http:\/\/\S+\/confirm\?token=\S+/.exec(confirmation!.parsed.text ?? "")![0];
    // Opening the link asks; its button (a POST to the same address) confirms.
    expect((await fetch(confirmLink)).status).toBe(200);
    expect((await fetch(confirmLink, { method: "POST" })).status).toBe(200);

    await call("POST", "/api/v1/incidents", { title: "Payments failing", impact: "major", message: "Card payments fail for some customers", component_ids: [componentIds[0]] });
    const mail = await eventually(async () => smtp.mails.find((m) => m.parsed.subject?.includes("Payments failing")), (m) => !!m);
    expect(mail).toBeTruthy();
    expect(mail!.envelope.to).toEqual([reader]);
    expect(mail!.parsed.subject).toBe("[Acme Status] New incident: Payments failing");
    expect(mail!.parsed.text).toContain("Card payments fail for some customers");
    const listUnsubscribe = header(mail!, "List-Unsubscribe")!;
    expect(header(mail!, "List-Unsubscribe-Post")).toBe("List-Unsubscribe=One-Click");
    const url = /^<(.+)>$/.exec(listUnsubscribe)![1]!;
    expect(mail!.parsed.text).toContain(url);

    // What a mail client does for RFC 8058 one-click.
    const res = await fetch(url, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: "List-Unsubscribe=One-Click" });
    expect(res.status).toBe(200);
    expect((await call("GET", `/api/v1/status-pages/${pageId}/subscribers`)).body.data).toHaveLength(0);

    // No further mail after unsubscribing.
    const before = smtp.mails.length;
    const list = await call("GET", "/api/v1/incidents?status=active");
    await call("POST", `/api/v1/incidents/${list.body.data[0].id}/resolve`, {});
    await Bun.sleep(300);
    expect(smtp.mails.length).toBe(before);
  });

  it("posts incident updates to webhook subscribers", async () => {
    const { call, pageId, componentIds } = await orgWithPage(api);
    const url = `http://127.0.0.1:${hookServer.port}/hook`;
    expect((await call("POST", `/api/v1/status-pages/${pageId}/subscribers`, { webhook_url: url })).status).toBe(201);
    const created = await call("POST", "/api/v1/incidents", { title: "Queue backlog", impact: "minor", message: "Jobs are delayed", component_ids: [componentIds[1]] });
    await call("POST", `/api/v1/incidents/${created.body.id}/updates`, { status: "monitoring", message: "Draining" });
    const got = await eventually(async () => hooks.filter((h) => (h as { incident: { id: string } }).incident.id === created.body.id), (h) => h.length === 2);
    expect(got.map((h) => (h as { type: string }).type)).toEqual(["incident.created", "incident.updated"]);
    expect(got[1]).toMatchObject({ update: { status: "monitoring", message: "Draining" }, page: { name: "Acme Status" } });
  });
});

describe("email alert channel through the API", () => {
  it("test-sends through the SMTP server the environment names", async () => {
    const { call } = await orgWithPage(api);
    const ch = await call("POST", "/api/v1/alert-channels", { name: "On-call mail", type: "email", config: { to: "oncall@acme.example" } });
    expect(ch.status).toBe(201);
    const res = await call("POST", `/api/v1/alert-channels/${ch.body.id}/test`);
    expect(res.status).toBe(200);
    expect(res.body.ok).toBe(true);
    const mail = smtp.mails.find((m) => m.envelope.to.includes("oncall@acme.example"));
    expect(mail?.parsed.subject).toBe("[Watchpost] 🧪 Test notification from Watchpost");
    expect(mail?.parsed.html).toContain("Test notification");
  });
});
