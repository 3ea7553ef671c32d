/**
 * The scaled mode on one machine (#24 goal 9): every role its own process on NATS JetStream and PostgreSQL — api ×1,
 * scheduler ×1, alerting ×A, cloud workers ×W — for each W a fresh database on the machine's PostgreSQL and a bus prefix
 * of its own on the machine's NATS (both removed afterwards). N HTTP monitors are created through
 * `POST /api/v1/monitors/bulk` against a loopback target that records every arrival; after the warm-up, one measured
 * window. Prints one line per W: checks/s arrived against expected, the interval deviation from the arrivals, stored
 * results by status, the JetStream backlog (jobs waiting, results not yet ingested), CPU per check and PSS per process
 * class (workers, alerting, scheduler, api, PostgreSQL backends of this database, nats-server, and the bench's own
 * target), and the load average.
 *
 * Usage: bun bench/scaled.ts [--workers 1,2,3] [--monitors 20000] [--interval 10] [--alerting 2] [--concurrency 200]
 *          [--target-delay MS] [--warmup 40] [--window 60]
 *          [--private-nats] (a nats-server of this run's own on a free port instead of the machine's at TEST_NATS_URL or
 *            127.0.0.1:4222: its CPU is then this run's alone, and other users' traffic does not queue ahead of it)
 * Choose N / interval above what one worker runs, so W = 1 saturates and the line shows whether more workers add
 * checks/s. Two ways to saturate a worker: its CPU (no delay: loopback checks cost only CPU), or its concurrency, as
 * distant targets do (--target-delay MS: each answer waits MS ms, so one worker runs at most CONCURRENCY × 1000 / MS
 * checks/s, whatever the machine's load). Linux only (/proc). The machine's nats-server and PostgreSQL background processes serve every database
 * and prefix on them: their CPU includes other users' (the load average says how busy the machine was).
 */
import { parseArgs } from "node:util";
import { type Bus, connectNatsBus } from "../core/bus/index.ts";
import { createSql, type Sql } from "../db/client.ts";
import { INGEST_DURABLE } from "../alerting/ingest/ingest.ts";
import { regionSubject } from "../schemas/messages/check-messages.ts";
import { client, makeOrg } from "../tests/support/api.ts";
import { createTestDatabase } from "../tests/support/db.ts";
import { dropNatsStreams, NATS_URL, natsPrefix } from "../tests/support/scheduling.ts";
import { type PrivateNats, startPrivateNats } from "../tests/faults/servers.ts";
import { freePort } from "../tests/support/free-port.ts";
import { startArrivalTarget } from "./lib/arrivals.ts";
import { ClassMeter, PgBackendMeter } from "./lib/class-meter.ts";
import { loadAverage, pidsByCommand } from "./lib/proc.ts";
import { startScaledRoles } from "./lib/scaled-roles.ts";

const { values } = parseArgs({
  options: {
    workers: { type: "string", default: "1,2,3" },
    monitors: { type: "string", default: "20000" },
    interval: { type: "string", default: "10" },
    alerting: { type: "string", default: "2" },
    concurrency: { type: "string", default: "200" },
    "target-delay": { type: "string", default: "0" },
    "private-nats": { type: "boolean", default: false },
    warmup: { type: "string", default: "40" },
    window: { type: "string", default: "60" },
  },
});
const WORKERS = values.workers.split(",").map((s) => Number(s.trim()));
const N = Number(values.monitors);
const INTERVAL_S = Number(values.interval);
const WARMUP_S = Number(values.warmup);
const WINDOW_S = Number(values.window);
const REGION = "bench-scaled";
const TARGET_DELAY_MS = Number(values["target-delay"]);
const target = startArrivalTarget(TARGET_DELAY_MS);

async function createMonitors(apiUrl: string, key: string): Promise<number> {
  const call = client(apiUrl, { key });
  const t0 = performance.now();
  for (let done = 0; done < N; done += 1000) {
    const monitors = Array.from({ length: Math.min(1000, N - done) }, (_, k) => ({
      name: `m${done + k}`,
      type: "http",
      config: { url: target.url(done + k) },
      interval_seconds: INTERVAL_S,
      timeout_ms: 5000,
      regions: [REGION],
    }));
    const res = await call("POST", "/api/v1/monitors/bulk", { monitors });
    if (res.status !== 201) throw new Error(`bulk create: ${res.status} ${JSON.stringify(res.body).slice(0, 500)}`);
  }
  return (performance.now() - t0) / 1000;
}

/**
 * Every 10 s while it runs, on stderr: arrivals per second at the target, results stored per second by status, and the
 * queues (jobs waiting in the region, results not yet ingested), so a run that falls behind shows where and when.
 */
function startProgress(sql: Sql, bus: Bus) {
  const t0 = performance.now();
  let lastArrivals = target.total();
  let lastAt = t0;
  let lastStored = new Date();
  return setInterval(async () => {
    const now = performance.now();
    const arrivals = target.total();
    const since = lastStored;
    lastStored = new Date();
    const rows = await sql<{ status: string; n: number; lag: number }[]>`
      select status, count(*)::int as n, percentile_cont(0.5) within group (order by extract(epoch from checked_at - scheduled_at))::float8 as lag
      from check_results where checked_at >= ${since} and checked_at < ${lastStored} group by status order by status`;
    const s = (now - lastAt) / 1000;
    const [jobs, results] = await Promise.all([bus.pendingJobs(regionSubject(REGION)), bus.pendingResults(INGEST_DURABLE)]);
    console.error(
      `  ${((now - t0) / 1000).toFixed(0)} s: arrivals/s ${((arrivals - lastArrivals) / s).toFixed(0)}, stored/s ${rows.map((r) => `${r.status} ${(r.n / s).toFixed(0)} (start lag p50 ${r.lag.toFixed(1)} s)`).join(", ") || "0"}, jobs waiting ${jobs}, results waiting ${results}`,
    );
    lastArrivals = arrivals;
    lastAt = now;
  }, 10_000);
}

function natsServerPid(natsUrl: string): number {
  const port = new URL(natsUrl.split(",")[0]!).port || "4222";
  const [pid] = pidsByCommand("nats-server", port);
  return pid ?? pidsByCommand("nats-server")[0] ?? 0;
}

async function run(w: number) {
  target.reset();
  const db = await createTestDatabase();
  const prefix = natsPrefix("bsc");
  const privateNats: PrivateNats | null = values["private-nats"] ? await startPrivateNats() : null;
  const natsUrl = privateNats?.url ?? NATS_URL;
  const bus = await connectNatsBus({ url: natsUrl, prefix });
  const monitorSql = createSql(db.url, { max: 1 });
  let roles: Awaited<ReturnType<typeof startScaledRoles>> | null = null;
  try {
    roles = await startScaledRoles({ databaseUrl: db.url, natsUrl, prefix, region: REGION, workers: w, alerting: Number(values.alerting), concurrency: Number(values.concurrency), apiPort: freePort() });
    // Placement needs the region online: ingest records the workers' beats.
    for (const end = Date.now() + 30_000; ; ) {
      const [row] = await db.sql<{ n: number }[]>`select count(*)::int as n from region_workers where region = ${REGION} and last_seen_at > now() - interval '15 seconds'`;
      if (row!.n >= w) break;
      if (Date.now() > end) throw new Error(`only ${row!.n} of ${w} workers online after 30 s`);
      await Bun.sleep(250);
    }
    const org = await makeOrg(db.sql, "unlimited");
    const createS = await createMonitors(roles.apiUrl, org.api_key);
    // The scheduler starts on the whole fleet, spreading first checks over the interval (no burst of new-monitor checks).
    await roles.startScheduler();
    const progress = startProgress(db.sql, bus);
    await Bun.sleep(WARMUP_S * 1000);

    const classes = new ClassMeter({
      workers: roles.pids.workers,
      alerting: roles.pids.alerting,
      scheduler: roles.pids.scheduler,
      api: roles.pids.api,
      nats: [natsServerPid(natsUrl)],
      target: [process.pid],
    });
    const pg = new PgBackendMeter(monitorSql);
    const from = performance.now();
    const fromWall = new Date();
    classes.start();
    await pg.start();
    const sampler = setInterval(() => {
      classes.samplePss();
      void pg.sample();
    }, 2000);
    await Bun.sleep(WINDOW_S * 1000);
    clearInterval(sampler);
    const to = performance.now();
    clearInterval(progress);
    const cpu = classes.stop();
    const pgCpu = await pg.stop();
    const windowS = (to - from) / 1000;

    const stats = target.window(N, from, to, INTERVAL_S * 1000);
    const stored = await db.sql<{ status: string; n: number }[]>`
      select status, count(*)::int as n from check_results where checked_at >= ${fromWall} and checked_at < ${new Date(fromWall.getTime() + windowS * 1000)} group by status order by status`;
    // Why checks were recorded unavailable (expired in the queue, no worker, ...): the first words of each reason.
    const reasons = await db.sql<{ reason: string; n: number }[]>`
      select substring(error from '^[^(:]*') as reason, count(*)::int as n from check_results
      where status = 'unavailable' and checked_at >= ${fromWall} group by 1 order by 2 desc limit 3`;
    const jobsWaiting = await bus.pendingJobs(regionSubject(REGION));
    const resultsWaiting = await bus.pendingResults(INGEST_DURABLE);
    const checks = stats.arrivals;
    const all = { ...cpu, pg: { ms: pgCpu.ms, pssKb: pgCpu.pssKb } };
    const perCheck = (ms: number) => (checks > 0 ? (ms / checks).toFixed(3) : "-");
    const ours = ["workers", "alerting", "scheduler", "api", "pg", "nats"] as const;
    const totalMs = ours.reduce((sum, k) => sum + all[k].ms, 0);
    const mb = (kb: number) => (kb / 1024).toFixed(0);
    const expected = N / INTERVAL_S;
    console.log(
      [
        `workers ${w}, alerting ${values.alerting}`,
        `monitors ${N} (created in ${createS.toFixed(1)} s)`,
        `checks/s ${(checks / windowS).toFixed(1)} of ${expected.toFixed(1)} (${((checks / windowS / expected) * 100).toFixed(0)} %)`,
        `silent monitors ${stats.silent}`,
        `stored ${stored.map((r) => `${r.status} ${r.n}`).join(", ") || "none"}`,
        `unavailable because ${reasons.map((r) => `${r.reason.trim()} ×${r.n}`).join("; ") || "-"}`,
        `backlog jobs ${jobsWaiting} results ${resultsWaiting}`,
        `interval deviation p50 ${stats.deviationP50.toFixed(0)} ms p99 ${stats.deviationP99.toFixed(0)} ms`,
        `CPU-ms per check ${ours.map((k) => `${k} ${perCheck(all[k].ms)}`).join(" ")} = ${perCheck(totalMs)} (target ${perCheck(all.target.ms)})`,
        `% of a core ${[...ours, "target" as const].map((k) => `${k} ${((all[k].ms / 1000 / windowS) * 100).toFixed(0)}`).join(" ")}`,
        `PSS MB ${ours.map((k) => `${k} ${mb(all[k].pssKb)}`).join(" ")}`,
        `load average ${loadAverage()}`,
      ].join(" | "),
    );
    for (const [what, n] of roles.complaints().slice(0, 8)) console.log(`  logged ${n}× ${what}`);
  } finally {
    await roles?.stop();
    await monitorSql.end({ timeout: 1 }).catch(() => {});
    await bus.close();
    if (privateNats) await privateNats.destroy();
    else await dropNatsStreams([prefix]);
    await db.drop();
  }
}

console.log(`bench/scaled: ${N} monitors every ${INTERVAL_S} s, alerting ×${values.alerting}, CONCURRENCY ${values.concurrency}, target delay ${TARGET_DELAY_MS} ms, NATS ${values["private-nats"] ? "private" : NATS_URL}, warm-up ${WARMUP_S} s, window ${WINDOW_S} s, ${navigator.hardwareConcurrency} cores, load average ${loadAverage(3)}`);
try {
  for (const w of WORKERS) await run(w);
} finally {
  target.stop();
}
process.exit(0);
