import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { TypeCompiler } from "@sinclair/typebox/compiler";
import { SecretBox } from "../../core/crypto/secrets.ts";
import { type CheckJobMessage, CheckResultMessageSchema } from "../../schemas/messages/check-messages.ts";
import { executeJob } from "./execute.ts";

const valid = TypeCompiler.Compile(CheckResultMessageSchema);
const box = new SecretBox("execute-test-secret-key-0123456789abcdef");
let target: ReturnType<typeof Bun.serve>;
beforeAll(() => {
  target = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("ok") });
});
afterAll(() => target.stop(true));

const job = (over: Partial<CheckJobMessage> = {}): CheckJobMessage => ({
  id: "mon_x.eu.1",
  org_id: "org_x",
  monitor_id: "mon_x",
  location: "eu",
  location_type: "region",
  due_at: Date.now(),
  expires_at: Date.now() + 30_000,
  type: "http",
  config: { url: `http://127.0.0.1:${target.port}/` },
  secrets_enc: null,
  timeout_ms: 5000,
  ...over,
});

describe("executeJob", () => {
  it("every result it produces (ran, expired, not runnable) validates against CheckResultMessage", async () => {
    const o = { box, allowPrivate: true, ipv6: false, now: () => Date.now() };
    const ran = await executeJob(job(), o);
    const expired = await executeJob(job({ expires_at: 0 }), o);
    const heartbeat = await executeJob(job({ type: "heartbeat", config: { period_seconds: 60 } }), o);
    expect([ran.status, expired.status, heartbeat.status]).toEqual(["up", "unavailable", "unavailable"]);
    for (const m of [ran, expired, heartbeat]) expect([m.status, valid.Errors(m).First()?.message]).toEqual([m.status, undefined]);
  });
});
