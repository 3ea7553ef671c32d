/**
 * A runner job published while no runner could reach the API (scaled mode: no API process up; all-in-one: its database
 * unreachable, so the API answers 503) keeps its life for when the runner can reach the API again. The scheduler cannot
 * count an outage still under way when it publishes; the API counts it when it hands the job out. Before, the job kept
 * its normal life and a healthy runner recorded it `unavailable` ("job expired before the runner could run it").
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { buildApiDeps, startApiServer } from "../../api/server.ts";
import { createSql, type Sql } from "../../db/client.ts";
import { silentLogger } from "../../core/log.ts";
import { TEST_SECRET_KEY } from "../support/api.ts";
import { startTcpProxy, type TcpProxy } from "../support/tcp-proxy.ts";
import { collectResults, orgWithRunner, publishHttpJob, spawnRunner, startTarget, startTlsApi, type TlsApi } from "./support.ts";

/** The life the scheduler gives a job of a monitor checked every 10 s. */
const LIFE_MS = 10_000;

let target: ReturnType<typeof startTarget>;
beforeAll(() => {
  target = startTarget();
});
afterAll(() => target?.stop());

const runnerEnv = (api: TlsApi, token: string) => ({
  SERVICE_API_URL: api.url,
  SERVICE_TOKEN: token,
  RUNNER_NAME: "outage-runner",
  POLL_INTERVAL_MS: "1000",
  HEARTBEAT_INTERVAL_MS: "5000",
  ALLOW_PRIVATE_IPS: "true",
  LOG_FORMAT: "json",
  NODE_EXTRA_CA_CERTS: api.caFile,
});

/** A runner job due now, as the scheduler publishes it during an outage: its life from its due time. */
const publishDuringOutage = (api: TlsApi, orgId: string, runnerId: string, monitorId: string) =>
  publishHttpJob(api.bus, orgId, runnerId, monitorId, `${target.url}/ok`, { expires_at: Date.now() + LIFE_MS, life_ms: LIFE_MS });

describe("a runner job published while no runner could reach the API", () => {
  it("is run by a live runner once an API process is up again (scaled mode: every API process was down)", async () => {
    const api = await startTlsApi();
    let second: Awaited<ReturnType<typeof startApiServer>> | null = null;
    try {
      const { org, runner } = await orgWithRunner(api);
      const results = await collectResults(api.bus, org.org_id);
      const proc = spawnRunner(runnerEnv(api, runner.token));
      await proc.waitForOutput("runner connected");
      // Its presence beats (every 5 s) while it is up.
      await Bun.sleep(1_000);
      await api.server.stop(500);
      const job = await publishDuringOutage(api, org.org_id, runner.id, "mon_scaled_outage");
      // Longer than the job's life, and than the 15 s after which a silent API's presence has ended.
      await Bun.sleep(16_000);
      const deps = buildApiDeps({ sql: api.db.sql, config: { ...api.server.deps.config, PORT: api.server.port }, log: silentLogger, secretKey: TEST_SECRET_KEY, bus: api.bus });
      second = await startApiServer(deps, { tls: api.leaf });
      const r = await results.waitFor((x) => x.id === job.id, 15_000);
      expect({ status: r.status, error: r.error }).toEqual({ status: "up", error: null });
      proc.proc.kill("SIGTERM");
      expect(await proc.exited).toBe(0);
      await results.stop();
    } finally {
      await second?.stop(500);
      await api.stop();
    }
  }, 60_000);

  it("is run by a live runner once the all-in-one's database answers again (the API answered it 503 meanwhile)", async () => {
    let proxy: TcpProxy | null = null;
    let sql: Sql | null = null;
    // The API reaches PostgreSQL through a proxy the test cuts; the test's own client does not.
    const api = await startTlsApi({
      sql: async (db) => {
        const url = new URL(db.url);
        proxy = await startTcpProxy(Number(url.port || 5432));
        url.port = String(proxy.port);
        sql = createSql(url.toString(), { max: 4, stall: { afterMs: 2000, everyMs: 250, probeTimeoutMs: 1500 } });
        return sql;
      },
    });
    try {
      const { org, runner } = await orgWithRunner(api);
      const results = await collectResults(api.bus, org.org_id);
      const proc = spawnRunner(runnerEnv(api, runner.token));
      await proc.waitForOutput("runner connected");
      await Bun.sleep(1_000);
      await proxy!.cut("refuse");
      const job = await publishDuringOutage(api, org.org_id, runner.id, "mon_db_outage");
      await Bun.sleep(LIFE_MS + 4_000);
      expect(proc.output()).toContain("API unreachable");
      await proxy!.restore();
      const r = await results.waitFor((x) => x.id === job.id, 15_000);
      expect({ status: r.status, error: r.error }).toEqual({ status: "up", error: null });
      proc.proc.kill("SIGTERM");
      expect(await proc.exited).toBe(0);
      await results.stop();
    } finally {
      await api.server.stop(500);
      await (sql as Sql | null)?.end({ timeout: 1 });
      await (proxy as TcpProxy | null)?.stop();
      await api.stop();
    }
  }, 60_000);
});
