import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { channelSpecs } from "../../schemas/channel-types.ts";
import { bindTemplate, templateView } from "../service/message-template.ts";
import { channels } from "./registry.ts";
import { type SmtpReceiver, startSmtpReceiver } from "./email/smtp-receiver.ts";
import { type HttpReceiver, sampleEvent, startHttpReceiver, testContext } from "./testing.ts";

/** Every channel places a template's title and body, with values escaped for where they land. */
const hostile = `<b>*Pay*</b> _now_ & <!channel> [x](https://evil.example)`;
const event = sampleEvent("alert", { monitor: { id: "mon_42", name: hostile, type: "http" } });
const template = { title: "{{kind_label}}: {{monitor.name}}", body: "*Down* {{monitor.name}} in {{region}} at {{time}}\n{{#error}}Error: {{error}}{{/error}}" };
const bound = () => bindTemplate(event, { template, timezone: "Europe/Berlin" }, "https://watchpost.example");

let http: HttpReceiver;
let smtp: SmtpReceiver;
beforeAll(async () => {
  http = await startHttpReceiver({
    ok: (req) => (req.path.includes("/tg/") ? Response.json({ ok: true, result: { message_id: 1 } }) : new Response("ok")),
    endpoints: (url) => ({ telegram: `${url}/tg`, pagerduty: `${url}/pd`, opsgenie: { us: `${url}/og`, eu: `${url}/og` } }),
  });
  smtp = await startSmtpReceiver();
});
afterAll(async () => {
  await http.close();
  await smtp.close();
});

const ctx = () => testContext({ ...http.ctx, ...smtp.ctx });
const send = async (type: keyof typeof channels, config: Record<string, unknown>) => {
  await (channels[type].send as (...a: unknown[]) => Promise<unknown>)(event, config, ctx(), bound());
  return http.last().json();
};
const when = "2026-11-22 11:15:00 CET";

describe("message templates in every channel", () => {
  it("every channel type declares where its title and body land", () => {
    for (const spec of Object.values(channelSpecs)) expect(spec.messageFormat).toBeDefined();
  });

  it("email: the subject is the title as plain text; the HTML part escapes values, the text part keeps them", async () => {
    await channels.email.send(event, { to: "oncall@acme.example" }, ctx(), bound());
    const mail = smtp.last().parsed;
    expect(mail.subject).toBe(`Triggered: ${hostile}`);
    expect(mail.html).toContain(`*Down* &lt;b&gt;*Pay*&lt;/b&gt; _now_ &amp; &lt;!channel&gt; [x](https://evil.example) in eu-west at ${when}\nError: connect ECONNREFUSED`);
    expect(mail.html).not.toContain("<b>*Pay*");
    expect(mail.text).toContain(`*Down* ${hostile} in eu-west at ${when}\nError: connect ECONNREFUSED`);
    expect(mail.text).toContain("Stop these emails: https://watchpost.example/unsubscribe?token=u1");
  });

  it("slack: the title in the plain-text header, the body as mrkdwn with values neutralised", async () => {
    const body = await send("slack", { url: `${http.url}/slack` });
    expect(body.blocks[0].text).toEqual({ type: "plain_text", text: `Triggered: ${hostile}`, emoji: true });
    const text: string = body.blocks[1].text.text;
    expect(body.blocks[1].text.type).toBe("mrkdwn");
    expect(text.startsWith("*Down* ")).toBe(true);
    expect(text).toContain("&lt;!channel&gt;");
    expect(text.replace(/\u200B/g, "")).toContain("&lt;b&gt;*Pay*&lt;/b&gt; _now_ &amp;");
    expect(text).not.toContain("*Pay*");
  });

  it("discord: markdown-escaped values in the title and description, no fields", async () => {
    const body = await send("discord", { url: `${http.url}/discord` });
    const embed = body.embeds[0];
    expect(embed.title).toBe("Triggered: \\<b\\>\\*Pay\\*\\</b\\> \\_now\\_ & \\<!channel\\> \\[x\\](https://evil.example)");
    expect(embed.description).toStartWith("*Down* \\<b\\>\\*Pay\\*");
    expect(embed.fields).toEqual([]);
    expect(body.allowed_mentions).toEqual({ parse: [] });
  });

  it("teams: markdown-escaped values in the card", async () => {
    const body = await send("teams", { url: `${http.url}/teams` });
    const blocks = body.attachments[0].content.body;
    expect(blocks[0].text).toStartWith("Triggered: \\<b\\>");
    expect(blocks[1].text).toContain("*Down* \\<b\\>\\*Pay\\*\\</b\\>");
    expect(blocks.some((b: { type: string }) => b.type === "FactSet")).toBe(false);
  });

  it("telegram: HTML parse mode, values HTML-escaped", async () => {
    const body = await send("telegram", { bot_token: "123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw", chat_id: 1 });
    expect(body.parse_mode).toBe("HTML");
    expect(body.text).toBe(`<b>Triggered: &lt;b&gt;*Pay*&lt;/b&gt; _now_ &amp; &lt;!channel&gt; [x](https://evil.example)</b>\n*Down* &lt;b&gt;*Pay*&lt;/b&gt; _now_ &amp; &lt;!channel&gt; [x](https://evil.example) in eu-west at ${when}\nError: connect ECONNREFUSED`);
  });

  it("telegram: a long message is cut under 4096 characters without half an entity; errors are cut to 1000 characters", async () => {
    const long = sampleEvent("alert", { result: { duration_ms: 1, error: "&".repeat(5000) } });
    const t = bindTemplate(long, { template: { body: "{{error}}|{{error}}|{{error}}|{{error}}|{{error}}" }, timezone: "UTC" }, "https://watchpost.example");
    await channels.telegram.send(long, { bot_token: "123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw", chat_id: 1 }, ctx(), t);
    const text: string = http.last().json().text;
    expect(text.length).toBeLessThanOrEqual(4096);
    expect(text).toEndWith("&amp;…");
    expect(text).not.toContain("|");
    expect(templateView(long, "UTC", "x").error).toBe(`${"&".repeat(999)}…`);
  });

  it("webhook: the payload stays JSON and gains message.title and message.body as plain strings", async () => {
    const body = await send("webhook", { url: `${http.url}/hook` });
    expect(body.message).toEqual({ title: `Triggered: ${hostile}`, body: `*Down* ${hostile} in eu-west at ${when}\nError: connect ECONNREFUSED` });
    expect(body.monitor.name).toBe(hostile);
  });

  it("pagerduty and opsgenie: the title as summary/message, the body in the details/description", async () => {
    const pd = await send("pagerduty", { routing_key: "R0123456789abcdef0123456789abcdef" });
    expect(pd.payload.summary).toBe(`Triggered: ${hostile}`);
    expect(pd.payload.custom_details.message).toContain(`*Down* ${hostile}`);
    const og = await send("opsgenie", { api_key: "00000000-0000-0000-0000-000000000000" });
    expect(og.message).toBe(`Triggered: ${hostile}`);
    expect(og.description).toContain(`*Down* ${hostile}`);
  });

  it("without a template every channel sends its own layout", async () => {
    const body = (await (async () => {
      await channels.webhook.send(event, { url: `${http.url}/hook` }, ctx());
      return http.last().json();
    })()) as { message?: unknown };
    expect(body.message).toBeUndefined();
  });
});
