import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { type SmtpReceiver, startSmtpReceiver } from "../../alerting/channels/email/smtp-receiver.ts";
import { type HttpReceiver, startHttpReceiver } from "../../alerting/channels/testing.ts";
import { client, makeOrg, startTestApi, type TestApi } from "../support/api.ts";

/**
 * Message templates through the API and the alerting role: validated on save, previewed with a
 * sample alert, and rendered into what a real webhook receiver and a real SMTP server get.
 */
let api: TestApi;
let receiver: HttpReceiver;
let smtp: SmtpReceiver;

beforeAll(async () => {
  receiver = await startHttpReceiver();
  smtp = await startSmtpReceiver();
  api = await startTestApi({
    ALLOW_PRIVATE_IPS: "true",
    SMTP_HOST: smtp.settings.host,
    SMTP_PORT: String(smtp.settings.port),
    SMTP_USER: smtp.settings.auth!.user,
    SMTP_PASSWORD: smtp.settings.auth!.pass,
    SMTP_FROM: smtp.settings.from,
  });
}, 60_000);
afterAll(async () => {
  await api.stop();
  await receiver.close();
  await smtp.close();
}, 60_000);

async function org() {
  const o = await makeOrg(api.sql, "free");
  return client(api.url, { key: o.api_key });
}

const template = {
  title: "[{{kind_label}}] {{monitor.name}}",
  body: "<b>{{monitor.name}}</b> is {{status}} in {{region}} since {{time}}\n{{#error}}Error: {{error}}{{/error}}\n{{links.dashboard}}",
};

const issuesOf = (res: { body: { details?: { issues?: { path: string; message: string }[] } } }) => res.body.details?.issues ?? [];

describe("alert channel message templates", () => {
  it("stores a template and a time zone, shows them on read, and clears the template with null", async () => {
    const call = await org();
    const created = await call("POST", "/api/v1/alert-channels", { name: "Hook", type: "webhook", config: { url: `${receiver.url}/hook` }, template, timezone: "Europe/Berlin" });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ template, timezone: "Europe/Berlin" });
    const plain = await call("POST", "/api/v1/alert-channels", { name: "Plain", type: "webhook", config: { url: `${receiver.url}/hook` } });
    expect(plain.body).toMatchObject({ template: null, timezone: "UTC" });
    const renamed = await call("PATCH", `/api/v1/alert-channels/${created.body.id}`, { name: "Renamed" });
    expect(renamed.body).toMatchObject({ name: "Renamed", template, timezone: "Europe/Berlin" });
    const cleared = await call("PATCH", `/api/v1/alert-channels/${created.body.id}`, { template: null, timezone: "UTC" });
    expect(cleared.body).toMatchObject({ template: null, timezone: "UTC" });
    expect((await call("PATCH", `/api/v1/alert-channels/${created.body.id}`, { template: { title: "  " } })).body.template).toBeNull();
  });

  it("refuses unknown variables, syntax errors, unescaped output and unknown time zones with 400 VALIDATION_ERROR naming each", async () => {
    const call = await org();
    const base = { name: "Hook", type: "webhook", config: { url: `${receiver.url}/hook` } };
    const bad = await call("POST", "/api/v1/alert-channels", { ...base, template: { title: "{{monitor.nam}}", body: "{{#error}}x" }, timezone: "Mars/Olympus" });
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe("VALIDATION_ERROR");
    expect(bad.body.error).toBeString();
    const issues = issuesOf(bad);
    expect(issues).toContainEqual({ path: "body.template.title", message: expect.stringContaining('unknown variable "monitor.nam"') });
    expect(issues).toContainEqual({ path: "body.template.body", message: expect.stringContaining('Unclosed section "error"') });
    expect(issues).toContainEqual({ path: "body.timezone", message: expect.stringContaining("Mars/Olympus") });
    const raw = await call("POST", "/api/v1/alert-channels", { ...base, template: { body: "{{{monitor.name}}}" } });
    expect(raw.status).toBe(400);
    expect(JSON.stringify(issuesOf(raw))).toContain("unescaped output");
    const tooLong = await call("POST", "/api/v1/alert-channels", { ...base, template: { body: "x".repeat(5001) } });
    expect(tooLong.status).toBe(400);
    const extra = await call("POST", "/api/v1/alert-channels", { ...base, template: { subject: "{{region}}" } });
    expect(extra.status).toBe(400);
    // A bad config and a bad template are reported together.
    const both = await call("POST", "/api/v1/alert-channels", { ...base, config: { url: "not a url" }, template: { body: "{{nope}}" } });
    expect(issuesOf(both).map((i) => i.path)).toEqual(["body.config.url", "body.template.body"]);
    // A PATCH is validated the same way, and nothing is stored.
    const { body: ok } = await call("POST", "/api/v1/alert-channels", base);
    const patched = await call("PATCH", `/api/v1/alert-channels/${ok.id}`, { template: { body: "{{password}}" } });
    expect(patched.status).toBe(400);
    expect(issuesOf(patched)).toEqual([{ path: "body.template.body", message: expect.stringContaining('unknown variable "password"') }]);
    expect((await call("GET", `/api/v1/alert-channels/${ok.id}`)).body.template).toBeNull();
  });

  it("previews with a sample alert, escaped as the channel type sends it", async () => {
    const call = await org();
    const email = await call("POST", "/api/v1/alert-channels/preview", { type: "email", template, timezone: "Europe/Berlin" });
    expect(email.status).toBe(200);
    expect(email.body).toEqual({
      title: "[Triggered] Checkout API",
      body: `<b>Checkout API</b> is down in eu-west since 2026-11-22 05:42:10 CET\nError: HTTP 503 Service Unavailable\n${api.server.deps.publicBaseUrl}`,
      title_format: "plain",
      body_format: "html",
    });
    const recovery = await call("POST", "/api/v1/alert-channels/preview", { type: "slack", template: { body: "{{kind_label}}: {{monitor.name}}{{#error}} ({{error}}){{/error}}" }, kind: "recovery" });
    expect(recovery.body).toEqual({ title: null, body: "Resolved: Checkout API", title_format: "plain", body_format: "slack" });
    const bad = await call("POST", "/api/v1/alert-channels/preview", { type: "discord", template: { body: "{{monitor.secret}}" } });
    expect(bad.status).toBe(400);
    expect(issuesOf(bad)).toEqual([{ path: "body.template.body", message: expect.stringContaining('unknown variable "monitor.secret"') }]);
    expect((await call("POST", "/api/v1/alert-channels/preview", { type: "pigeon", template })).status).toBe(400);
  });

  it("a real webhook receiver gets the rendered template in message, with the channel's time zone", async () => {
    const call = await org();
    const { body: ch } = await call("POST", "/api/v1/alert-channels", { name: "Hook", type: "webhook", config: { url: `${receiver.url}/templated` }, template, timezone: "America/New_York" });
    receiver.requests.length = 0;
    const sent = await call("POST", `/api/v1/alert-channels/${ch.id}/test`);
    expect(sent.body.ok).toBe(true);
    const payload = receiver.last().json();
    expect(receiver.last().path).toBe("/templated");
    expect(payload.kind).toBe("test");
    expect(payload.message.title).toBe("[Test] Test monitor");
    expect(payload.message.body).toMatch(/^<b>Test monitor<\/b> is down in test since \d{4}-\d\d-\d\d \d\d:\d\d:\d\d E[SD]T\n\n/);
  });

  it("a real SMTP server gets the template's subject and HTML body, values escaped", async () => {
    const call = await org();
    const { body: ch } = await call("POST", "/api/v1/alert-channels", {
      name: "Mail",
      type: "email",
      config: { to: "oncall@acme.example" },
      template: { title: "{{kind_label}} <{{monitor.name}}>", body: "<p><b>{{monitor.name}}</b> &mdash; {{org.name}}</p>" },
      timezone: "Europe/Berlin",
    });
    const sent = await call("POST", `/api/v1/alert-channels/${ch.id}/test`);
    expect(sent.body.ok).toBe(true);
    const mail = smtp.last().parsed;
    expect(mail.subject).toBe("Test <Test monitor>");
    expect(mail.html).toContain("<p><b>Test monitor</b> &mdash; ");
    expect(mail.text).toContain("<p><b>Test monitor</b> &mdash; ");
  });
});
