import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { startIngest } from "../../alerting/ingest/ingest.ts";
import type { ConsumerHandle } from "../../core/bus/index.ts";
import { silentLogger } from "../../core/log.ts";
import { startWorker, type WorkerHandle } from "../../runner/cloud/worker.ts";
import { startScheduler, type SchedulerHandle } from "../../scheduler/start.ts";
import { client, makeOrg, startTestApi, type TestApi } from "../support/api.ts";
import { markRegionOnline } from "../support/scheduling.ts";

// Issue 23 item 3: a new or resumed monitor is checked at once by the scheduler (the API runs no
// checks), not after up to a whole interval. The whole path runs here: API, scheduler, worker, ingest.

let api: TestApi;
let scheduler: SchedulerHandle;
let worker: WorkerHandle;
let ingest: ConsumerHandle;
let target: ReturnType<typeof Bun.serve>;

beforeAll(async () => {
  api = await startTestApi({ ALLOW_PRIVATE_IPS: "true", REGIONS: "local" }, undefined, undefined, { workerRegions: [] });
  target = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("fine") });
  ingest = await startIngest({ sql: api.sql, bus: api.bus, log: silentLogger, maxWaitMs: 10 });
  worker = await startWorker({ bus: api.bus, box: api.server.deps.box, log: silentLogger, region: "local", allowPrivate: true, heartbeatMs: 500 });
  await markRegionOnline(api.sql, "local");
  scheduler = await startScheduler({ sql: api.sql, databaseUrl: api.db.url, bus: api.bus, log: silentLogger, lockRetryMs: 200 });
  const deadline = Date.now() + 15_000;
  while (!scheduler.isLeader()) {
    if (Date.now() > deadline) throw new Error("the scheduler did not become leader");
    await Bun.sleep(50);
  }
});
afterAll(async () => {
  await scheduler.stop();
  await worker.stop();
  await ingest.stop();
  target.stop(true);
  await api.stop();
});

/** Waits for the monitor's first stored result; answers how long it took, or null after `ms`. */
async function firstResult(call: ReturnType<typeof client>, id: string, ms: number) {
  const start = Date.now();
  while (Date.now() - start < ms) {
    const res = await call("GET", `/api/v1/monitors/${id}/checks?limit=1`);
    if (res.body.data?.length > 0) return { after: Date.now() - start, check: res.body.data[0] };
    await Bun.sleep(100);
  }
  return null;
}

describe("the first check of a monitor", () => {
  it("runs within seconds of creating it, not an interval later", async () => {
    const o = await makeOrg(api.sql, "business");
    const call = client(api.url, { key: o.api_key });
    // An hour's interval: on its grid the first check would come up to an hour later.
    const created = await call("POST", "/api/v1/monitors", { name: "At once", type: "http", config: { url: `http://127.0.0.1:${target.port}/` }, interval_seconds: 3600 });
    expect(created.status).toBe(201);
    const first = await firstResult(call, created.body.id, 10_000);
    expect(first).not.toBeNull();
    expect(first!.check).toMatchObject({ status: "up", location: "local" });
    expect((await call("GET", `/api/v1/monitors/${created.body.id}`)).body.status).toBe("up");
  });

  it("runs within seconds of resuming a paused monitor, and not while it is paused", async () => {
    const o = await makeOrg(api.sql, "business");
    const call = client(api.url, { key: o.api_key });
    const created = await call("POST", "/api/v1/monitors", { name: "Later", type: "http", config: { url: `http://127.0.0.1:${target.port}/` }, interval_seconds: 3600, paused: true });
    expect(created.status).toBe(201);
    expect(await firstResult(call, created.body.id, 1500)).toBeNull();
    expect((await call("POST", `/api/v1/monitors/${created.body.id}/resume`)).status).toBe(200);
    const first = await firstResult(call, created.body.id, 10_000);
    expect(first?.check).toMatchObject({ status: "up" });
  });
});
