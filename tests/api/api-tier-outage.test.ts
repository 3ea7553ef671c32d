import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { startIngest } from "../../alerting/ingest/ingest.ts";
import { startRunnerWatch } from "../../alerting/runtime/runner-watch.ts";
import { buildApiDeps, startApiServer } from "../../api/server.ts";
import type { ConsumerHandle } from "../../core/bus/index.ts";
import { createLogger, silentLogger } from "../../core/log.ts";
import { BlindTime } from "../../core/process/blind-time.ts";
import { apiPresences, apiTierAbsences } from "../../db/queries/api-presence.ts";
import { sweepHeartbeats } from "../../domain/monitors/heartbeat.ts";
import { apiTierWatch } from "../../domain/runners/api-tier.ts";
import { newId } from "../../core/ids.ts";
import { createSql } from "../../db/client.ts";
import { startTcpProxy } from "../support/tcp-proxy.ts";
import { until } from "../support/scheduling.ts";
import { client, makeOrg, startTestApi, TEST_SECRET_KEY, type TestApi } from "../support/api.ts";

// The scaled mode: pings and runner heartbeats arrive through the API processes, judged by the scheduler and
// alerting processes. While every API process was down, the judges still read the database; the silence they saw
// then is no evidence (core/process/blind-time.ts, db/queries/api-presence.ts).

let api: TestApi;
let ingest: ConsumerHandle;
beforeAll(async () => {
  api = await startTestApi();
  ingest = await startIngest({ sql: api.sql, bus: api.bus, log: silentLogger, maxWaitMs: 10 });
});
afterAll(async () => {
  await ingest.stop();
  await api.stop();
});

/** The API tier's history, seconds before now: each [started, last beat] (0: beating now). Replaces what is there. */
async function apiTierWas(...presences: [startedAgoS: number, lastBeatAgoS: number][]) {
  await api.sql`delete from api_presence`;
  for (const [from, to] of presences) {
    await api.sql`insert into api_presence (instance_id, started_at, last_beat_at)
                  values (${newId("api")}, now() - make_interval(secs => ${from}), now() - make_interval(secs => ${to}))`;
  }
}

/** A heartbeat monitor expecting a ping every 60 s without grace, last pinged 200 s ago: deadlines 140, 80 and 20 s ago. */
async function pinged200sAgo() {
  const o = await makeOrg(api.sql, "business");
  const call = client(api.url, { key: o.api_key });
  const { body: m } = await call("POST", "/api/v1/monitors", { name: "cron", type: "heartbeat", config: { period_seconds: 60, grace_seconds: 0 } });
  await api.sql`update monitors set last_ping_at = now() - interval '200 seconds', heartbeat_due_at = null where id = ${m.id}`;
  return m.id as string;
}

async function statuses(monitorId: string, n: number): Promise<string[]> {
  const read = () => api.sql`select status from check_results where monitor_id = ${monitorId} order by scheduled_at`;
  await until(async () => (await read()).length >= n, 3000, `${n} results`);
  return (await read()).map((r) => r.status);
}

describe("an outage of every API process (scaled mode)", () => {
  it("is recorded by each listening API, which stops counting as up when it stops", async () => {
    const other = await startApiServer(buildApiDeps({ sql: api.sql, config: api.server.deps.config, log: silentLogger, secretKey: TEST_SECRET_KEY, bus: api.bus }));
    const beating = () => apiPresences(api.sql).then((ps) => ps.filter((p) => p.toAgoS === 0).length);
    await until(async () => (await beating()) >= 2, 5000, "both APIs beating");
    expect(await apiTierAbsences(api.sql)()).toEqual([]);
    await other.stop(100);
    // 20 s later (moved back rather than waited for): the stopped one has not beaten since, the other beats on.
    await api.sql`update api_presence set last_beat_at = last_beat_at - interval '20 seconds', started_at = started_at - interval '20 seconds'`;
    await until(async () => (await beating()) === 1, 8000, "one API beating");
    const ended = (await apiPresences(api.sql)).filter((p) => p.toAgoS > 0);
    expect(ended.length).toBe(1);
    expect(ended[0]!.toAgoS).toBeGreaterThanOrEqual(20);
    // The first API was up all along: nothing was blind.
    expect(await apiTierAbsences(api.sql)()).toEqual([]);
  });

  it("ends a stopped API's presence when it stopped listening, not at its last beat before", async () => {
    const other = await startApiServer(buildApiDeps({ sql: api.sql, config: api.server.deps.config, log: silentLogger, secretKey: TEST_SECRET_KEY, bus: api.bus }));
    const instances = async () => new Set((await api.sql`select instance_id from api_presence`).map((r) => r.instance_id as string));
    const before = await instances();
    await until(async () => (await instances()).size > before.size, 5000, "its first beat");
    const [own] = [...(await instances())].filter((id) => !before.has(id));
    await Bun.sleep(1000); // stopped between two beats (every 5 s): its last one was a second before
    const [{ at: stoppingAt }] = await api.sql`select now() as at`;
    await other.stop(100);
    const [row] = await api.sql`select last_beat_at from api_presence where instance_id = ${own!}`;
    expect((row!.last_beat_at as Date).getTime()).toBeGreaterThanOrEqual((stoppingAt as Date).getTime());
  });

  it("records a deadline a ping would have met while no API was up as unavailable, and the next one down", async () => {
    const monitor = await pinged200sAgo();
    // One API up until 150 s ago, the next from 100 s ago: no ping could arrive between.
    await apiTierWas([1000, 150], [100, 0]);
    const scaled = new BlindTime({ elsewhere: apiTierAbsences(api.sql) });
    await scaled.watch((span) => sweepHeartbeats(api.sql, api.bus, new Date(), span));
    expect(await statuses(monitor, 3)).toEqual(["unavailable", "unavailable", "down"]);
    // The judge before: every deadline down.
    const before = await pinged200sAgo();
    await new BlindTime().watch((span) => sweepHeartbeats(api.sql, api.bus, new Date(), span));
    expect(await statuses(before, 3)).toEqual(["down", "down", "down"]);
  });

  it("while no API is up, records no missed deadline as down", async () => {
    const monitor = await pinged200sAgo();
    // The only API stopped beating 170 s ago.
    await apiTierWas([1000, 170]);
    await new BlindTime({ elsewhere: apiTierAbsences(api.sql) }).watch((span) => sweepHeartbeats(api.sql, api.bus, new Date(), span));
    expect(await statuses(monitor, 3)).toEqual(["unavailable", "unavailable", "unavailable"]);
  });

  it("does not announce a runner offline whose silence fell while no API was up", async () => {
    const o = await makeOrg(api.sql, "business");
    const runner = newId("run");
    // Heartbeats every 30 s: offline after 90 s of silence. The last came 120 s ago; no API was up from 115 to 10 s ago.
    await api.sql`insert into runners (id, org_id, name, token_hash, heartbeat_interval_ms, last_seen_at)
                  values (${runner}, ${o.org_id}, 'office', ${crypto.getRandomValues(new Uint8Array(32))}, 30000, now() - interval '120 seconds')`;
    await apiTierWas([1000, 115], [10, 0]);
    const offline = () => api.sql`select count(*)::int as n from notifications where org_id = ${o.org_id} and type = 'runner.offline'`.then((r) => r[0]!.n as number);
    const watch = startRunnerWatch(api.sql, silentLogger, 20, new BlindTime({ elsewhere: apiTierAbsences(api.sql) }));
    await Bun.sleep(300);
    await watch.stop();
    expect(await offline()).toBe(0);
    // Seen by a judge that knows nothing of the API tier: offline.
    const before = startRunnerWatch(api.sql, silentLogger, 20, new BlindTime());
    await until(async () => (await offline()) === 1, 3000, "runner.offline");
    await before.stop();
  });

  it("tells the operator once when no API process is up, and once when one is back", async () => {
    const lines: { level: number; op: string; msg: string }[] = [];
    const log = createLogger({ level: "info", format: "json", destination: { write: (l: string) => void lines.push(JSON.parse(l)) } });
    const watch = apiTierWatch(api.sql, log);
    // Right after this test's own API beat, so that its next beat (which says it is up) comes after the reads.
    await api.sql`delete from api_presence`;
    await until(async () => (await api.sql`select 1 from api_presence`).length > 0, 8000, "a beat");
    await apiTierWas([1000, 170]);
    await watch();
    await watch();
    await apiTierWas([1000, 170], [5, 0]);
    await watch();
    expect(lines.map((l) => [l.level, l.op])).toEqual([
      [40, "api-tier.absent"],
      [30, "api-tier.back"],
    ]);
    expect(lines[0]!.msg).toContain("no API process is up");
  });

  /** A step that must end in time: a hang is then named, not the test's timeout. */
  const within = <T>(step: Promise<T>, ms: number, what: string): Promise<T> =>
    Promise.race([step, Bun.sleep(ms).then((): never => { throw new Error(`${what}: not done within ${ms} ms`); })]);

  // Refused: PostgreSQL stopped. Closed: a load balancer or pooler in front of it, with nothing behind, accepts and hangs up.
  // Blackhole: a network that drops every packet. Forget: a firewall or NAT that dropped the open flows' state. The
  // silent two answer once the client gives the connection up (db/stall-watch.ts, here after 2 s of quiet) or a new
  // connection's 10 s connect timeout ends.
  it.each(["refuse", "close", "blackhole", "forget"] as const)("records when an API that is up could not reach the database (%s: a ping answered 503), whatever other APIs did", async (how) => {
    const target = new URL(api.db.url);
    const proxy = await startTcpProxy(Number(target.port || 5432));
    const viaProxy = new URL(api.db.url);
    viaProxy.port = String(proxy.port);
    const sql = createSql(viaProxy.toString(), { max: 4, stall: { afterMs: 2000, everyMs: 250, probeTimeoutMs: 1500 } });
    const silent = how === "blackhole" || how === "forget";
    const cut = await startApiServer(buildApiDeps({ sql, config: api.server.deps.config, log: silentLogger, secretKey: TEST_SECRET_KEY, bus: api.bus }));
    try {
      const o = await makeOrg(api.sql, "business");
      const { body: m } = await client(api.url, { key: o.api_key })("POST", "/api/v1/monitors", { name: "cron", type: "heartbeat", config: { period_seconds: 60, grace_seconds: 0 } });
      // Bounded, so a ping the API never answers fails here, named, rather than as the test's timeout.
      const ping = () => fetch(`${cut.url}${new URL(m.heartbeat_url).pathname}`, { signal: AbortSignal.timeout(15_000) });
      expect((await ping()).status).toBe(200);
      const interruptions = async () => (await api.sql`select count(*)::int as n from api_interruptions`)[0]!.n as number;
      const before = await interruptions();
      await within(proxy.cut(how), 5000, "cutting the proxy");
      const refusedIn = performance.now();
      const refused = await ping();
      const refusedAt = Date.now();
      expect(refused.status).toBe(503);
      expect(performance.now() - refusedIn).toBeLessThan(silent ? 12_000 : 5000);
      expect((await refused.json()).code).toBe("SERVICE_UNAVAILABLE");
      await within(proxy.restore(), 5000, "restoring the proxy");
      // Its next good beat records the stretch: up to three beats of 5 s (one in flight when the ping was refused, one
      // failing on a connection the cut closed, the one that records), more on a loaded machine (CI once took over
      // 12 s for "close"). The test's other API was up and beating all along.
      await until(async () => (await interruptions()) > before, 25_000, "the interruption recorded");
      const refusedAgoS = (Date.now() - refusedAt) / 1000;
      const gaps = await apiTierAbsences(api.sql)();
      expect(gaps.some((g) => g.fromAgoS > refusedAgoS && g.toAgoS < refusedAgoS)).toBe(true);
    } finally {
      await within(cut.stop(100), 10_000, "stopping the API");
      await within(sql.end({ timeout: 1 }), 5000, "closing its client");
      await within(proxy.stop(), 5000, "stopping the proxy");
    }
  }, 60_000);
});
