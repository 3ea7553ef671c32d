import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { runChannelContract } from "../contract.ts";
import { validateChannelConfig } from "../registry.ts";
import { sampleEvent, testContext } from "../testing.ts";
import { email } from "./email.ts";
import { type SmtpReceiver, startSmtpReceiver } from "./smtp-receiver.ts";

runChannelContract("email", { makeReceiver: () => startSmtpReceiver(), config: () => ({ to: "oncall@acme.example" }) });

const header = (mail: { parsed: { headers: { key: string; value: string }[] } }, key: string) =>
  mail.parsed.headers.find((h) => h.key === key.toLowerCase())?.value;

describe("email channel", () => {
  let receiver: SmtpReceiver;
  beforeAll(async () => void (receiver = await startSmtpReceiver()));
  afterAll(() => receiver.close());
  const send = (event = sampleEvent(), to: string | string[] = ["oncall@acme.example", "sre@acme.example"]) =>
    email.send(event, { to }, testContext(receiver.ctx));

  it("sends a text and an HTML part from the deployment's sender to every recipient", async () => {
    const receipt = await send();
    expect(receipt.status).toBe(250);
    expect(receipt.providerId).toMatch(/^<.+@.+>$/);
    const mail = receiver.last();
    expect(mail.envelope).toEqual({ from: "alerts@watchpost.example", to: ["oncall@acme.example", "sre@acme.example"] });
    expect(mail.parsed.subject).toBe("[Watchpost] 🔴 Alert: Checkout API");
    expect(mail.parsed.from).toMatchObject({ name: "Watchpost", address: "alerts@watchpost.example" });
    expect(mail.parsed.text?.trim()).toBe(
      [
        "🔴 Alert: Checkout API",
        "status is down or timeout in eu-west",
        "",
        "Status: DOWN",
        "Rule: Checkout API down",
        "Region: eu-west",
        "Target: https://shop.example/api/health",
        "Response time: 5012 ms",
        "Error: connect ECONNREFUSED",
        "Started: 2026-11-22 10:02:30 UTC",
        "Alerting for: 12m 30s",
        "",
        "View monitor: https://watchpost.example/monitors/mon_42",
        "Acknowledge: https://watchpost.example/ack?token=t0k",
        "",
        "Acme · Watchpost · 2026-11-22 10:15:00 UTC",
        "Stop these emails: https://watchpost.example/unsubscribe?token=u1",
      ].join("\n"),
    );
    const html = mail.parsed.html ?? "";
    expect(html).toContain("<h2 style=\"border-left:6px solid #d93f3f;padding-left:8px\">🔴 Alert: Checkout API</h2>");
    expect(html).toContain('<tr><th align="left" style="padding:2px 12px 2px 0">Error</th><td>connect ECONNREFUSED</td></tr>');
    expect(html).toContain('<a href="https://watchpost.example/ack?token=t0k" style="margin-right:16px">Acknowledge</a>');
    expect(html).toContain('<a href="https://watchpost.example/unsubscribe?token=u1">Unsubscribe</a>');
    expect(header(mail, "Auto-Submitted")).toBe("auto-generated");
    expect(header(mail, "X-Watchpost-Event")).toBe("alert");
  });

  it("sets List-Unsubscribe with one-click POST when the event has an unsubscribe link", async () => {
    await send();
    expect(header(receiver.last(), "List-Unsubscribe")).toBe("<https://watchpost.example/unsubscribe?token=u1>");
    expect(header(receiver.last(), "List-Unsubscribe-Post")).toBe("List-Unsubscribe=One-Click");
  });

  it("leaves out the unsubscribe headers and footer when there is no link", async () => {
    await send(sampleEvent("alert", { links: { monitor: "https://watchpost.example/monitors/mon_42" } }));
    expect(header(receiver.last(), "List-Unsubscribe")).toBeUndefined();
    expect(header(receiver.last(), "List-Unsubscribe-Post")).toBeUndefined();
    expect(receiver.last().parsed.text).not.toContain("Stop these emails");
  });

  it("threads the alert and its recovery together and keeps them apart from another incarnation", async () => {
    await send(sampleEvent("alert"));
    const first = header(receiver.last(), "References");
    await send(sampleEvent("recovery"));
    expect(header(receiver.last(), "References")).toBe(first);
    await send(sampleEvent("alert", { dedupKey: "rule_7:mon_42:eu-west:4" }));
    expect(header(receiver.last(), "References")).not.toBe(first);
  });

  it("escapes HTML in user text", async () => {
    await send(sampleEvent("alert", { monitor: { id: "mon_42", name: "<script>x</script>", type: "http" } }));
    expect(receiver.last().parsed.html).toContain("&lt;script&gt;x&lt;/script&gt;");
    expect(receiver.last().parsed.html).not.toContain("<script>");
  });

  it("delivers to the accepted recipients and reports the refused ones", async () => {
    const receipt = await send(sampleEvent(), ["oncall@acme.example", "nobody@acme.example"]);
    expect(receipt.detail).toBe("refused by the server: nobody@acme.example");
    expect(receiver.last().envelope.to).toEqual(["oncall@acme.example"]);
  });

  it("fails permanently when every recipient is refused", async () => {
    const err = await send(sampleEvent(), "nobody@acme.example").catch((e) => e);
    expect(err).toMatchObject({ permanent: true, status: 550 });
    expect(err.message).toContain(`SMTP 127.0.0.1:${receiver.settings.port}`);
    expect(err.message).toContain("No such user here");
  });

  it("fails permanently on wrong SMTP credentials", async () => {
    const ctx = testContext({ smtp: { ...receiver.settings, auth: { user: "mailer", pass: "wrong" } } });
    expect(await email.send(sampleEvent(), { to: "oncall@acme.example" }, ctx).catch((e) => e)).toMatchObject({ permanent: true, status: 535 });
  });

  it("fails permanently when the deployment has no SMTP settings", async () => {
    const err = await email.send(sampleEvent(), { to: "oncall@acme.example" }, testContext()).catch((e) => e);
    expect(err).toMatchObject({ permanent: true, message: "email is not configured on this deployment (no SMTP settings)" });
  });

  it("accepts one address or a list of up to 20 and rejects malformed ones", () => {
    expect(validateChannelConfig("email", { to: "a@b.example" })).toEqual([]);
    expect(validateChannelConfig("email", { to: ["a@b.example", "c@d.example"] })).toEqual([]);
    expect(validateChannelConfig("email", { to: "not an address" })).not.toEqual([]);
    expect(validateChannelConfig("email", { to: [] })).not.toEqual([]);
    expect(validateChannelConfig("email", { to: Array.from({ length: 21 }, (_, i) => `u${i}@b.example`) })).not.toEqual([]);
  });
});
