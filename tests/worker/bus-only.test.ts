import { afterAll, beforeAll, expect, it } from "bun:test";
import { connectNatsBus, type Bus } from "../../core/bus/index.ts";
import { type CheckJobMessage, jobId, regionBrowserSubject, regionSubject } from "../../schemas/messages/check-messages.ts";
import { findArtifact } from "../../db/queries/check-artifacts.ts";
import { html, startPageServer } from "../../runner/checks/browser/test-support.ts";
import { createTestDatabase, type TestDatabase } from "../support/db.ts";
import { spawnRole, type RoleProcess } from "../support/processes.ts";
import { dropNatsStreams, insertMonitors, insertOrg, NATS_URL, natsPrefix, until } from "../support/scheduling.ts";

/**
 * A cloud worker started without DATABASE_URL (it has none to open) runs its checks; its presence and a
 * browser check's screenshot reach PostgreSQL only through the alerting role's ingest, over NATS.
 */
const prefix = natsPrefix("bo");
const region = "bus-only";
const SECRET_KEY = "bus-only-test-secret-key-0123456789abcdef0123";
let db: TestDatabase;
let bus: Bus;
let site: ReturnType<typeof startPageServer>;
const procs: RoleProcess[] = [];

beforeAll(async () => {
  db = await createTestDatabase();
  site = startPageServer({ "/": () => html("<title>Shop</title><p>Welcome</p>") });
  bus = await connectNatsBus({ url: NATS_URL, prefix });
  await bus.ensureTopology({ resultDurables: [{ name: "ingest" }] });
}, 30_000);
afterAll(async () => {
  await Promise.all(procs.map((p) => p.stop(2000)));
  site?.stop();
  await bus?.close();
  await dropNatsStreams([prefix]);
  await db?.drop();
}, 30_000);

const job = (monitorId: string, orgId: string, type: string, config: Record<string, unknown>): CheckJobMessage => {
  const due = Date.now();
  return { id: jobId(monitorId, region, due), org_id: orgId, monitor_id: monitorId, location: region, location_type: "region", due_at: due, expires_at: due + 60_000, type, config, secrets_enc: null, timeout_ms: 10_000 };
};

it(
  "a worker without DATABASE_URL runs checks, and its presence and screenshots reach the database through ingest",
  async () => {
    const alerting = spawnRole("alerting/main.ts", { DATABASE_URL: db.url, NATS_URL, NATS_PREFIX: prefix, SECRET_KEY });
    procs.push(alerting);
    await alerting.waitForLog("ingest and alerting started", 20_000);
    // Only the bus and the secret key: no DATABASE_URL in its environment at all.
    const env = { NATS_URL, NATS_PREFIX: prefix, SECRET_KEY, ALLOW_PRIVATE_IPS: "true", HEARTBEAT_INTERVAL_MS: "1000", BROWSERS: "chromium", BROWSER_POOL_SIZE: "1" };
    const worker = spawnRole("runner/cloud/main.ts", env, ["--region", region]);
    procs.push(worker);
    await worker.waitForLog("worker consuming", 30_000);

    const presence = () => db.sql<{ browsers: string[]; worker_id: string }[]>`select worker_id, browsers from region_workers where region = ${region}`;
    await until(async () => (await presence()).length === 1, 10_000, "the worker's presence recorded by ingest");
    expect((await presence())[0]!.browsers).toEqual(["chromium"]);

    const org = await insertOrg(db.sql);
    const [httpMonitor, browserMonitor] = await insertMonitors(db.sql, org, [
      { type: "http", config: { url: site.url("/") }, regions: [region] },
      { type: "browser_lite", config: { url: site.url("/") }, regions: [region] },
    ]);
    const up = job(httpMonitor!, org, "http", { url: site.url("/") });
    const down = job(browserMonitor!, org, "browser_lite", { url: site.url("/"), keyword: "Checkout" });
    await bus.publishJob(regionSubject(region), up);
    await bus.publishJob(regionBrowserSubject(region, "chromium"), down);

    const stored = (id: string) => db.sql<{ status: string; data: { screenshots?: string[] | null } }[]>`select status, data from check_results where job_id = ${id}`;
    await until(async () => (await stored(up.id)).length === 1 && (await stored(down.id)).length === 1, 30_000, "both results stored");
    expect((await stored(up.id))[0]!.status).toBe("up");
    const [browserResult] = await stored(down.id);
    expect(browserResult).toMatchObject({ status: "down", data: { screenshots: ["failure"] } });
    const file = await findArtifact(db.sql, org, browserMonitor!, down.id);
    expect(file).toMatchObject({ name: "failure", content_type: "image/jpeg" });
    expect(file!.bytes[0]).toBe(0xff);

    // A clean stop says goodbye on the bus; ingest removes the worker without waiting for the TTL.
    await worker.stop(10_000);
    await until(async () => (await presence()).length === 0, 5000, "the worker's presence removed");
  },
  { timeout: 90_000 },
);
