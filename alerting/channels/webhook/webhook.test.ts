import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FormatRegistry } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { Webhook } from "standardwebhooks";
import { runChannelContract } from "../contract.ts";
import { maskSecrets, validateChannelConfig } from "../registry.ts";
import { type HttpReceiver, type ReceivedRequest, sampleEvent, startHttpReceiver, testContext } from "../testing.ts";
import { alertEventKinds } from "../types.ts";
import { WebhookPayload } from "./payload.ts";
import { webhook } from "./webhook.ts";

// Standard Webhooks secrets: whsec_ + base64 of 24 to 64 random bytes.
const secret = `whsec_${Buffer.from("0123456789abcdef0123456789abcdef").toString("base64")}`;
const nextSecret = `whsec_${Buffer.from("fedcba9876543210fedcba9876543210").toString("base64")}`;

runChannelContract("webhook", {
  makeReceiver: () => startHttpReceiver(),
  config: (r) => ({ url: `${r.url}/hooks/watchpost`, secret, headers: { Authorization: "Bearer receiver-token-1234" } }),
});

/** What a receiver does: the standardwebhooks library's Webhook.verify, never the code under test. */
function verify(req: ReceivedRequest, key: string, options?: { format: "raw" }): boolean {
  try {
    new Webhook(key, options).verify(req.body, Object.fromEntries(req.headers));
    return true;
  } catch {
    return false;
  }
}

describe("webhook channel", () => {
  let receiver: HttpReceiver;
  const ctx = testContext();
  // Webhook.verify compares webhook-timestamp with the real clock (5 minutes' tolerance).
  const now = testContext({ clock: { now: () => new Date(), sleep: (ms) => Bun.sleep(ms) } });
  beforeAll(async () => void (receiver = await startHttpReceiver()));
  afterAll(() => receiver.close());
  const url = () => `${receiver.url}/hooks/watchpost?team=ops`;

  it("posts the documented JSON payload with the Standard Webhooks id and timestamp headers", async () => {
    await webhook.send(sampleEvent(), { url: url(), secret }, ctx);
    const req = receiver.last();
    expect(req.path).toBe("/hooks/watchpost?team=ops");
    expect(req.headers.get("content-type")).toBe("application/json");
    expect(req.headers.get("x-watchpost-event")).toBe("alert");
    expect(req.headers.get("webhook-id")).toBe("rule_7:mon_42:eu-west:3:ch_9:alert:1");
    expect(req.headers.get("webhook-timestamp")).toBe(String(Date.parse("2026-11-22T10:15:00Z") / 1000));
    expect(req.headers.get("webhook-signature")).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
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
      region_name: "eu-west",
      status: "down",
      condition: "status is down or timeout",
      result: { duration_ms: 5012, error: "connect ECONNREFUSED" },
      links: { monitor: "https://watchpost.example/monitors/mon_42", acknowledge: "https://watchpost.example/ack?token=t0k" },
    });
  });

  it("signs so that the standardwebhooks library's Webhook.verify accepts it with the channel's secret", async () => {
    await webhook.send(sampleEvent("recovery"), { url: url(), secret }, now);
    expect(verify(receiver.last(), secret)).toBe(true);
    expect(verify(receiver.last(), nextSecret)).toBe(false);
  });

  it("fails verification for a tampered body, a changed id or an old timestamp", async () => {
    await webhook.send(sampleEvent(), { url: url(), secret }, now);
    const req = receiver.last();
    expect(verify(req, secret)).toBe(true);
    expect(verify({ ...req, body: req.body.replace('"down"', '"up"') }, secret)).toBe(false);
    const otherId = new Headers(req.headers);
    otherId.set("webhook-id", "rule_7:mon_42:eu-west:3:ch_9:alert:2");
    expect(verify({ ...req, headers: otherId }, secret)).toBe(false);
    // Signed at the test clock's fixed time, days ago: a replay that Webhook.verify refuses.
    await webhook.send(sampleEvent(), { url: url(), secret }, ctx);
    expect(verify(receiver.last(), secret)).toBe(false);
  });

  it("while a secret is rotated, signs with both so receivers holding either one verify", async () => {
    await webhook.send(sampleEvent(), { url: url(), secret: nextSecret, previous_secret: secret }, now);
    const signatures = receiver.last().headers.get("webhook-signature")!.split(" ");
    expect(signatures).toHaveLength(2);
    expect(signatures.every((s) => s.startsWith("v1,"))).toBe(true);
    expect(verify(receiver.last(), nextSecret)).toBe(true);
    expect(verify(receiver.last(), secret)).toBe(true);
    expect(verify(receiver.last(), `whsec_${Buffer.from("a third secret, never configured").toString("base64")}`)).toBe(false);
    // Rotation done: only the new secret signs.
    await webhook.send(sampleEvent(), { url: url(), secret: nextSecret }, now);
    expect(receiver.last().headers.get("webhook-signature")!.split(" ")).toHaveLength(1);
    expect(verify(receiver.last(), secret)).toBe(false);
  });

  it("uses a secret set before Standard Webhooks (not whsec_) as raw bytes, as Webhook's raw format reads it", async () => {
    await webhook.send(sampleEvent(), { url: url(), secret: "a-very-long-signing-secret-1234" }, now);
    expect(verify(receiver.last(), "a-very-long-signing-secret-1234", { format: "raw" })).toBe(true);
  });

  it("sends no signature header when the channel has no secret", async () => {
    await webhook.send(sampleEvent(), { url: url() }, ctx);
    expect(receiver.last().headers.get("webhook-signature")).toBeNull();
    expect(receiver.last().headers.get("webhook-id")).not.toBeNull();
    expect(receiver.last().headers.get("webhook-timestamp")).not.toBeNull();
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
    const issues = validateChannelConfig("webhook", { url: "https://example.com/h", headers: { "Webhook-Signature": "x", "X-Watchpost-Event": "x", "Content-Type": "text/plain" } });
    expect(issues.map((i) => i.path).sort()).toEqual(["/headers/Content-Type", "/headers/Webhook-Signature", "/headers/X-Watchpost-Event"]);
    expect(validateChannelConfig("webhook", { url: "https://example.com/h", headers: { "Bad Header": "x" } })).not.toEqual([]);
    expect(validateChannelConfig("webhook", { url: "https://example.com/h", headers: { "X-A": "line\r\nbreak" } })).not.toEqual([]);
    expect(validateChannelConfig("webhook", { url: "https://example.com/h", secret: "short" })).not.toEqual([]);
  });

  it("accepts a whsec_ secret only when it is base64 of at least 24 bytes, and a previous secret only beside a secret", () => {
    expect(validateChannelConfig("webhook", { url: "https://example.com/h", secret, previous_secret: nextSecret })).toEqual([]);
    expect(validateChannelConfig("webhook", { url: "https://example.com/h", secret: "whsec_not base64 at all!!" }).map((i) => i.path)).toEqual(["/secret"]);
    expect(validateChannelConfig("webhook", { url: "https://example.com/h", secret: `whsec_${Buffer.from("too short").toString("base64")}` }).map((i) => i.path)).toEqual(["/secret"]);
    expect(validateChannelConfig("webhook", { url: "https://example.com/h", previous_secret: secret }).map((i) => i.path)).toEqual(["/previous_secret"]);
    expect(validateChannelConfig("webhook", { url: "https://example.com/h", secret, previous_secret: secret }).map((i) => i.path)).toEqual(["/previous_secret"]);
  });

  it("masks the URL (it may carry the receiver's token), both secrets and every extra header value", () => {
    const masked = maskSecrets("webhook", { url: "https://example.com/hooks/catch/1/tok9", secret, previous_secret: nextSecret, headers: { Authorization: "Bearer receiver-token-1234", "X-Team": "ops" } });
    expect(masked).toEqual({ url: "••••tok9", secret: `••••${secret.slice(-4)}`, previous_secret: `••••${nextSecret.slice(-4)}`, headers: { Authorization: "••••1234", "X-Team": "••••" } });
  });

  it("is verified by docs/channels.md's TypeScript snippet, run as written", async () => {
    const doc = readFileSync(join(import.meta.dir, "../../../docs/channels.md"), "utf8");
    const section = doc.slice(doc.indexOf("#### Verifying a delivery"));
    const snippet = section.slice(section.indexOf("```ts\n") + 6, section.indexOf("```", section.indexOf("```ts\n") + 6));
    expect(snippet.split("\n").filter((l) => l.trim() && !l.trim().startsWith("//")).length).toBeLessThanOrEqual(5);
    await webhook.send(sampleEvent(), { url: url(), secret }, now);
    const req = receiver.last();
    const dir = mkdtempSync(join(tmpdir(), "wp-verify-"));
    try {
      // The snippet's free variables (rawBody, headers) come from the delivery; its import from this checkout.
      const file = join(dir, "verify.ts");
      const code = snippet.replace('from "standardwebhooks"', `from ${JSON.stringify(require.resolve("standardwebhooks"))}`);
      const run = (body: string) => {
        writeFileSync(file, `const rawBody = ${JSON.stringify(body)};\nconst headers = ${JSON.stringify(Object.fromEntries(req.headers))};\n${code}\nconsole.log(JSON.stringify(payload));\n`);
        return Bun.spawnSync(["bun", file], { env: { ...process.env, WATCHPOST_WEBHOOK_SECRET: secret } });
      };
      const ok = run(req.body);
      expect(ok.exitCode).toBe(0);
      expect(JSON.parse(ok.stdout.toString()).id).toBe("rule_7:mon_42:eu-west:3:ch_9:alert:1");
      const tampered = run(req.body.replace('"down"', '"up"'));
      expect(tampered.exitCode).not.toBe(0);
      expect(tampered.stderr.toString()).toContain("No matching signature found");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
