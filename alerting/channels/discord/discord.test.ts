import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { runChannelContract } from "../contract.ts";
import { type HttpReceiver, sampleEvent, startHttpReceiver, testContext } from "../testing.ts";
import { discord } from "./discord.ts";

const hookPath = "/api/webhooks/1234567890/secret-token-abcdefgh";
// With ?wait=true Discord answers 200 with the created message.
const discordOk = () => Response.json({ id: "1299", type: 0 });

runChannelContract("discord", { makeReceiver: () => startHttpReceiver({ ok: discordOk }), config: (r) => ({ url: `${r.url}${hookPath}` }) });

describe("discord channel", () => {
  let receiver: HttpReceiver;
  const ctx = testContext();
  beforeAll(async () => void (receiver = await startHttpReceiver({ ok: discordOk })));
  afterAll(() => receiver.close());
  const send = (event = sampleEvent()) => discord.send(event, { url: `${receiver.url}${hookPath}` }, ctx);

  it("posts one embed with the facts and keeps the created message id", async () => {
    const receipt = await send();
    expect(receipt).toEqual({ status: 200, providerId: "1299" });
    const req = receiver.last();
    expect(req.path).toBe(`${hookPath}?wait=true`);
    expect(req.json()).toEqual({
      username: "Watchpost",
      allowed_mentions: { parse: [] },
      embeds: [
        {
          title: "🔴 Alert: Checkout API",
          description:
            "status is down or timeout in eu-west\n\n[View monitor](https://watchpost.example/monitors/mon_42) · [Acknowledge](https://watchpost.example/ack?token=t0k)",
          url: "https://watchpost.example/monitors/mon_42",
          color: 0xd93f3f,
          fields: [
            { name: "Status", value: "DOWN", inline: true },
            { name: "Rule", value: "Checkout API down", inline: true },
            { name: "Region", value: "eu-west", inline: true },
            { name: "Target", value: "https://shop.example/api/health", inline: false },
            { name: "Response time", value: "5012 ms", inline: true },
            { name: "Error", value: "connect ECONNREFUSED", inline: false },
            { name: "Started", value: "2026-11-22 10:02:30 UTC", inline: true },
            { name: "Alerting for", value: "12m 30s", inline: true },
          ],
          timestamp: "2026-11-22T10:15:00.000Z",
          footer: { text: "Acme · Watchpost" },
        },
      ],
    });
  });

  it("colours the embed by kind, and a degraded alert amber", async () => {
    const colours: Record<string, number> = {};
    for (const kind of ["alert", "escalation", "reminder", "recovery", "acknowledgement", "test"] as const) {
      await send(sampleEvent(kind));
      colours[kind] = receiver.last().json().embeds[0].color;
    }
    expect(colours).toEqual({ alert: 0xd93f3f, escalation: 0x9b1c1c, reminder: 0xe07b39, recovery: 0x2e9e5b, acknowledgement: 0x3b82f6, test: 0x6b7280 });
    await send(sampleEvent("alert", { status: "degraded" }));
    expect(receiver.last().json().embeds[0].color).toBe(0xe8a317);
  });

  it("keeps a query string already in the webhook URL (thread_id) and adds wait=true", async () => {
    await discord.send(sampleEvent(), { url: `${receiver.url}${hookPath}?thread_id=55` }, ctx);
    expect(receiver.last().path).toBe(`${hookPath}?thread_id=55&wait=true`);
  });

  it("keeps an embed of over-long user text under Discord's 6000-character total", async () => {
    const long = "x".repeat(10_000);
    await send(sampleEvent("alert", { condition: long, monitor: { id: "mon_42", name: long, type: "http", target: long }, result: { duration_ms: 1, error: long } }));
    const embed = receiver.last().json().embeds[0];
    const fields = embed.fields.map((f: { name: string; value: string }) => f.name.length + f.value.length);
    const total = embed.title.length + embed.description.length + embed.footer.text.length + fields.reduce((a: number, b: number) => a + b, 0);
    expect(total).toBeLessThanOrEqual(6000);
    expect(embed.fields.find((f: { name: string }) => f.name === "Error").value.endsWith("…")).toBe(true);
  });

  it("treats a 429 as retryable and keeps Discord's Retry-After", async () => {
    receiver.respondNext(() => Response.json({ message: "You are being rate limited.", retry_after: 2.5 }, { status: 429, headers: { "retry-after": "3" } }));
    const err = await send().catch((e) => e);
    expect(err).toMatchObject({ permanent: false, status: 429, retryAfterMs: 3000 });
    expect(err.message).toContain("You are being rate limited.");
  });
});
