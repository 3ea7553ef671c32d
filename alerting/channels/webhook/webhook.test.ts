import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { FormatRegistry } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { runChannelContract } from "../contract.ts";
import { maskSecrets, validateChannelConfig } from "../registry.ts";
import { type HttpReceiver, type ReceivedRequest, sampleEvent, startHttpReceiver, testContext } from "../testing.ts";
import { alertEventKinds } from "../types.ts";
import { WebhookPayload } from "./payload.ts";
import { webhook } from "./webhook.ts";

const secret = "whsec_0123456789abcdef";

runChannelContract("webhook", {
  makeReceiver: () => startHttpReceiver(),
  config: (r) => ({ url: `${r.url}/hooks/watchpost`, secret, headers: { Authorization: "Bearer receiver-token-1234" } }),
});

/** What a receiver would do, written with Web Crypto rather than the code under test. */
async function verify(req: ReceivedRequest, key: string): Promise<boolean> {
  const timestamp = req.headers.get("x-watchpost-timestamp")!;
  const k = await crypto.subtle.importKey("raw", new TextEncoder().encode(key), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const mac = await crypto.subtle.sign("HMAC", k, new TextEncoder().encode(`${timestamp}.${req.body}`));
  return req.headers.get("x-watchpost-signature") === `sha256=${Buffer.from(mac).toString("hex")}`;
}

describe("webhook channel", () => {
  let receiver: HttpReceiver;
  const ctx = testContext();
  beforeAll(async () => void (receiver = await startHttpReceiver()));
  afterAll(() => receiver.close());
  const url = () => `${receiver.url}/hooks/watchpost?team=ops`;

  it("posts the documented JSON payload with event, delivery and timestamp headers", async () => {
    await webhook.send(sampleEvent(), { url: url(), secret }, ctx);
    const req = receiver.last();
    expect(req.path).toBe("/hooks/watchpost?team=ops");
    expect(req.headers.get("content-type")).toBe("application/json");
    expect(req.headers.get("x-watchpost-event")).toBe("alert");
    expect(req.headers.get("x-watchpost-delivery")).toBe("rule_7:mon_42:eu-west:3:ch_9:alert:1");
    expect(req.headers.get("x-watchpost-timestamp")).toBe(String(Date.parse("2026-11-22T10:15:00Z") / 1000));
    expect(req.json()).toEqual({
      version: 1,
      id: "rule_7:mon_42:eu-west:3:ch_9:alert:1",
      kind: "alert",
      dedup_key: "rule_7:mon_42:eu-west:3",
      occurred_at: "2026-11-22T10:15:00.000Z",
      started_at: "2026-11-22T10:02:30.000Z",
      org: { id: "org_1", name: "Acme" },
      rule: { id: "rule_7", name: "Checkout API down" },
      monitor: { id: "mon_42", name: "Checkout API", type: "http", target: "https://shop.example/api/health" },
      region: "eu-west",
      status: "down",
      condition: "status is down or timeout",
      result: { duration_ms: 5012, error: "connect ECONNREFUSED" },
      links: { monitor: "https://watchpost.example/monitors/mon_42", acknowledge: "https://watchpost.example/ack?token=t0k" },
    });
  });

  it("signs timestamp.body with HMAC-SHA256 so a receiver holding the secret can verify it", async () => {
    await webhook.send(sampleEvent("recovery"), { url: url(), secret }, ctx);
    expect(await verify(receiver.last(), secret)).toBe(true);
    expect(await verify(receiver.last(), "whsec_someone-else-entirely")).toBe(false);
  });

  it("sends no signature header when the channel has no secret", async () => {
    await webhook.send(sampleEvent(), { url: url() }, ctx);
    expect(receiver.last().headers.get("x-watchpost-signature")).toBeNull();
    expect(receiver.last().headers.get("x-watchpost-timestamp")).not.toBeNull();
  });

  it("adds the configured extra headers", async () => {
    await webhook.send(sampleEvent(), { url: url(), headers: { Authorization: "Bearer abc", "X-Team": "ops" } }, ctx);
    expect(receiver.last().headers.get("authorization")).toBe("Bearer abc");
    expect(receiver.last().headers.get("x-team")).toBe("ops");
  });

  it("produces a payload matching the published schema for every kind", async () => {
    // The schema's formats are for the OpenAPI document; checking them here needs them registered.
    if (!FormatRegistry.Has("date-time")) FormatRegistry.Set("date-time", (v) => !Number.isNaN(Date.parse(v)));
    if (!FormatRegistry.Has("uri")) FormatRegistry.Set("uri", (v) => URL.canParse(v));
    for (const kind of alertEventKinds) {
      await webhook.send(sampleEvent(kind), { url: url(), secret }, ctx);
      expect(receiver.last().json().kind).toBe(kind);
      expect([...Value.Errors(WebhookPayload, receiver.last().json())]).toEqual([]);
    }
  });

  it("refuses extra headers that would override its own or the HTTP client's", () => {
    const issues = validateChannelConfig("webhook", { url: "https://example.com/h", headers: { "X-Watchpost-Signature": "x", "Content-Type": "text/plain" } });
    expect(issues.map((i) => i.path).sort()).toEqual(["/headers/Content-Type", "/headers/X-Watchpost-Signature"]);
    expect(validateChannelConfig("webhook", { url: "https://example.com/h", headers: { "Bad Header": "x" } })).not.toEqual([]);
    expect(validateChannelConfig("webhook", { url: "https://example.com/h", headers: { "X-A": "line\r\nbreak" } })).not.toEqual([]);
    expect(validateChannelConfig("webhook", { url: "https://example.com/h", secret: "short" })).not.toEqual([]);
  });

  it("masks the URL (it may carry the receiver's token), the secret and every extra header value", () => {
    const masked = maskSecrets("webhook", { url: "https://example.com/hooks/catch/1/tok9", secret, headers: { Authorization: "Bearer receiver-token-1234", "X-Team": "ops" } });
    expect(masked).toEqual({ url: "••••tok9", secret: "••••cdef", headers: { Authorization: "••••1234", "X-Team": "••••" } });
  });
});
