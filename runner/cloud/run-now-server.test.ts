import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { createMemoryBus, NoResponderError } from "../../core/bus/index.ts";
import { SecretBox } from "../../core/crypto/secrets.ts";
import { silentLogger } from "../../core/log.ts";
import { type CheckJobMessage, type CheckResultMessage, runNowRegionSubject } from "../../schemas/messages/check-messages.ts";
import { startRunNowServer } from "./run-now-server.ts";
import { jobRunner } from "./worker.ts";

let target: ReturnType<typeof Bun.serve>;
beforeAll(() => {
  target = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: (req) => new Response("ok", { status: new URL(req.url).pathname === "/ok" ? 200 : 500 }) });
});
afterAll(() => target.stop(true));

const job = (over: Partial<CheckJobMessage> = {}): CheckJobMessage => ({
  id: `run.mon_r.${Date.now()}`,
  org_id: "org_r",
  monitor_id: "mon_r",
  location: "eu",
  location_type: "region",
  due_at: Date.now(),
  expires_at: Date.now() + 60_000,
  type: "http",
  config: { url: `http://127.0.0.1:${target.port}/ok` },
  secrets_enc: null,
  timeout_ms: 5000,
  ...over,
});

async function world() {
  const bus = createMemoryBus();
  await bus.ensureTopology({ resultDurables: [{ name: "ingest" }] });
  const published: CheckResultMessage[] = [];
  await bus.consumeResults<CheckResultMessage>("ingest", { maxWaitMs: 5 }, (batch) => void published.push(...batch.map((d) => d.data)));
  // No screenshots in these checks, so the worker's database is never reached.
  const run = jobRunner({ box: new SecretBox("run-now-test-secret-key-0123456789abcdef"), log: silentLogger, allowPrivate: true });
  const server = await startRunNowServer({ bus, log: silentLogger, region: "eu", engines: [], run });
  return { bus, published, server };
}

describe("run-now server of a cloud worker", () => {
  it("runs a run-now job of its region like a scheduled one, publishes the result and answers with it", async () => {
    const { bus, published, server } = await world();
    const j = job();
    const answer = await bus.request<CheckJobMessage, CheckResultMessage>(runNowRegionSubject("eu"), j, { timeoutMs: 10_000 });
    expect(answer).toMatchObject({ id: j.id, monitor_id: "mon_r", location: "eu", location_type: "region", status: "up", scheduled_at: j.due_at, data: { status_code: 200 } });
    await Bun.sleep(50);
    expect(published.map((m) => m.id)).toEqual([j.id]);
    await server.stop();
    await bus.close();
  });

  it("answers but publishes nothing for a job that is not to be recorded, or that could not run", async () => {
    const { bus, published, server } = await world();
    const paused = await bus.request<CheckJobMessage, CheckResultMessage>(runNowRegionSubject("eu"), job({ record: false, config: { url: `http://127.0.0.1:${target.port}/fail` } }), { timeoutMs: 10_000 });
    expect(paused.status).toBe("down");
    const expired = await bus.request<CheckJobMessage, CheckResultMessage>(runNowRegionSubject("eu"), job({ expires_at: 0 }), { timeoutMs: 10_000 });
    expect(expired.status).toBe("unavailable");
    await Bun.sleep(50);
    expect(published).toEqual([]);
    await server.stop();
    await bus.close();
  });

  it("serves only its region, and browser engines only when it has them", async () => {
    const { bus, server } = await world();
    expect(await bus.request(runNowRegionSubject("us"), job(), { timeoutMs: 1000 }).catch((e) => e)).toBeInstanceOf(NoResponderError);
    expect(await bus.request(runNowRegionSubject("eu", "chromium"), job(), { timeoutMs: 1000 }).catch((e) => e)).toBeInstanceOf(NoResponderError);
    await server.stop();
    expect(await bus.request(runNowRegionSubject("eu"), job(), { timeoutMs: 1000 }).catch((e) => e)).toBeInstanceOf(NoResponderError);
    await bus.close();
  });
});
