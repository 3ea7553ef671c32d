/**
 * Soak: an hour of a 10,000-monitor fleet compressed into a bounded run (10 minutes with 30 s
 * intervals by default: the checks of an hour at 3-minute intervals), on the all-in-one mode and on
 * the scaled topology (API, scheduler ×2, alerting ×2, worker ×2 as processes on NATS JetStream),
 * each on a PostgreSQL cluster (and NATS server) of its own on loopback. 1% of the monitors flap
 * between up and down so alerts flow to a loopback webhook. Prints per mode:
 *   checks/s stored, scheduling deviation (checked_at - scheduled_at) p50/p99, alert latency (the
 *   check that fired to the webhook receiving it) p50/p99, RSS of each process at the start and the
 *   end of the measured window (medians of its first and last fifth, sampled every 10 s; flagged when it grew more than 10%),
 *   PostgreSQL bytes per million results.
 *
 * Usage: bun bench/soak.ts [--mode all-in-one|scaled|both] [--minutes 10] [--monitors 10000] [--interval 30] [--short]
 *   --short: a smoke run (1 minute, 500 monitors, 10 s intervals). Env SOAK_MINUTES, SOAK_MONITORS, SOAK_INTERVAL also work.
 */
import { parseArgs } from "node:util";
import { createSql, type Sql } from "../db/client.ts";
import { migrate } from "../db/migrate.ts";
import { client, makeOrg } from "../tests/support/api.ts";
import { spawnRole, type RoleProcess } from "../tests/support/processes.ts";
import { insertMonitors } from "../tests/support/scheduling.ts";
import { startPrivateNats, startPrivatePostgres } from "../tests/faults/servers.ts";
import { freePort } from "../tests/support/free-port.ts";

const { values: args } = parseArgs({
  options: { mode: { type: "string" }, minutes: { type: "string" }, monitors: { type: "string" }, interval: { type: "string" }, short: { type: "boolean" } },
});
const SHORT = Boolean(args.short);
const MINUTES = Number(args.minutes ?? process.env.SOAK_MINUTES ?? (SHORT ? 1 : 10));
const MONITORS = Number(args.monitors ?? process.env.SOAK_MONITORS ?? (SHORT ? 500 : 10_000));
const INTERVAL_S = Number(args.interval ?? process.env.SOAK_INTERVAL ?? (SHORT ? 10 : 30));
const MODES = (args.mode ?? "both") === "both" ? ["all-in-one", "scaled"] : [args.mode!];
const FLAPPING = Math.max(1, Math.round(MONITORS / 100));
const SECRET_KEY = "soak-bench-secret-key-0123456789abcdef0123456789";

const pct = (xs: number[], p: number) => {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
};
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

function median(values: number[]): number {
  const sorted = [...values].sort((x, y) => x - y);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

/** The JavaScript heap a role reports on its metrics endpoint (prom-client's nodejs_heap_size_used_bytes), 0 when unreachable. */
async function heapOf(metricsUrl: string | undefined): Promise<number> {
  if (!metricsUrl) return 0;
  try {
    const text = await (await fetch(metricsUrl, { signal: AbortSignal.timeout(2000) })).text();
    return Number(/^nodejs_heap_size_used_bytes(?:\{[^}]*\})? (\S+)/m.exec(text)?.[1] ?? 0);
  } catch {
    return 0;
  }
}

function rssOf(pid: number): number {
  try {
    const status = require("node:fs").readFileSync(`/proc/${pid}/status`, "utf8") as string;
    return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024;
  } catch {
    return 0;
  }
}

/** Loopback targets: /ok answers 200; /flap/<i> answers 500 in every other window of four intervals. */
function startTargets() {
  const epoch = Date.now();
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(req) {
      const path = new URL(req.url).pathname;
      if (path.startsWith("/flap/") && Math.floor((Date.now() - epoch) / (4 * INTERVAL_S * 1000)) % 2 === 1) return new Response("down", { status: 500 });
      return new Response("ok");
    },
  });
  return { url: `http://127.0.0.1:${server.port}`, stop: () => server.stop(true) };
}

/** The webhook: when each alert arrived, against when the check that fired it ran. */
function startReceiver() {
  const latencies: number[] = [];
  let received = 0;
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      const body = (await req.json()) as { kind: string; occurred_at: string };
      received++;
      if (body.kind === "alert") latencies.push(Date.now() - Date.parse(body.occurred_at));
      return new Response("ok");
    },
  });
  return { url: `http://127.0.0.1:${server.port}/hook`, latencies, received: () => received, stop: () => server.stop(true) };
}

interface SoakProcess {
  name: string;
  proc: RoleProcess;
  metricsUrl?: string;
}

interface Topology {
  apiUrl: string;
  processes: SoakProcess[];
  stopSchedulers(): Promise<void>;
  stop(): Promise<void>;
}

async function startAllInOne(databaseUrl: string, region: string): Promise<Topology> {
  const port = freePort();
  const metricsPort = freePort();
  const proc = spawnRole("scripts/start.ts", {
    DATABASE_URL: databaseUrl,
    SECRET_KEY,
    HOST: "127.0.0.1",
    PORT: String(port),
    METRICS_PORT: String(metricsPort),
    REGIONS: region,
    REGION_LOCATIONS: `${region}=Loopback`,
    ALLOW_PRIVATE_IPS: "true",
    BILLING: "false",
    BILLING_SIMULATOR: "false",
    RATE_LIMIT_PER_ORG: "1000000", RATE_LIMIT_PER_SESSION: "1000000",
    CONCURRENCY: "200",
    LOG_LEVEL: "info",
  });
  await proc.waitForLog("Watchpost running (all-in-one)", 60_000).catch(async (err) => {
    await proc.stop(1000);
    throw err;
  });
  return {
    apiUrl: `http://127.0.0.1:${port}`,
    processes: [{ name: "all-in-one", proc, metricsUrl: `http://127.0.0.1:${metricsPort}/metrics` }],
    // One process: the schedule stops with it.
    stopSchedulers: async () => {},
    stop: () => proc.stop(30_000),
  };
}

async function startScaled(databaseUrl: string, natsUrl: string, region: string): Promise<Topology> {
  const common = { DATABASE_URL: databaseUrl, NATS_URL: natsUrl, SECRET_KEY, LOG_LEVEL: "info" };
  const port = freePort();
  const apiMetricsPort = freePort();
  const api = spawnRole("api/main.ts", { ...common, HOST: "127.0.0.1", PORT: String(port), METRICS_PORT: String(apiMetricsPort), REGIONS: region, REGION_LOCATIONS: `${region}=Loopback`, BILLING: "false", RATE_LIMIT_PER_ORG: "1000000" });
  await api.waitForLog("API listening", 60_000);
  // Every role serves its metrics on METRICS_PORT, read for the JavaScript heap beside RSS.
  const role = (name: string, entry: string, env: Record<string, string>, argv: string[] = []): SoakProcess => {
    const metricsPort = freePort();
    return { name, proc: spawnRole(entry, { ...common, ...env, METRICS_PORT: String(metricsPort) }, argv), metricsUrl: `http://127.0.0.1:${metricsPort}/metrics` };
  };
  const processes: SoakProcess[] = [
    { name: "api", proc: api, metricsUrl: `http://127.0.0.1:${apiMetricsPort}/metrics` },
    role("alerting-1", "alerting/main.ts", { ALLOW_PRIVATE_IPS: "true" }),
    role("alerting-2", "alerting/main.ts", { ALLOW_PRIVATE_IPS: "true" }),
    role("worker-1", "runner/cloud/main.ts", { ALLOW_PRIVATE_IPS: "true", CONCURRENCY: "200" }, ["--region", region]),
    role("worker-2", "runner/cloud/main.ts", { ALLOW_PRIVATE_IPS: "true", CONCURRENCY: "200" }, ["--region", region]),
  ];
  await Promise.all(processes.slice(1).map((p) => p.proc.waitForLog(p.name.startsWith("worker") ? "worker consuming" : "ingest and alerting started", 60_000)));
  const schedulers = [role("scheduler-1", "scheduler/main.ts", {}), role("scheduler-2", "scheduler/main.ts", {})];
  const deadline = Date.now() + 60_000;
  while (!schedulers.some((s) => s.proc.lines.some((l) => l.msg === "schedule running"))) {
    if (Date.now() > deadline) throw new Error("no scheduler started the schedule within 60 s");
    await Bun.sleep(100);
  }
  processes.push(...schedulers);
  return {
    apiUrl: `http://127.0.0.1:${port}`,
    processes,
    stopSchedulers: async () => void (await Promise.all(schedulers.map((s) => s.proc.stop(15_000)))),
    stop: async () => void (await Promise.all(processes.map((p) => p.proc.stop(30_000)))),
  };
}

async function storageBytes(sql: Sql): Promise<number> {
  const [row] = await sql<{ bytes: number }[]>`
    select coalesce(sum(pg_total_relation_size(c.oid)), 0)::float8 as bytes from pg_class c
    where c.relkind in ('r', 'p') and (c.relname like 'check_results%')`;
  return row!.bytes;
}

async function soak(mode: string): Promise<void> {
  console.log(`\n== ${mode}: ${MONITORS} monitors every ${INTERVAL_S} s (${FLAPPING} flapping), ${MINUTES} min measured`);
  const region = "soak";
  const pg = await startPrivatePostgres();
  const nats = mode === "scaled" ? await startPrivateNats() : null;
  const targets = startTargets();
  const receiver = startReceiver();
  let topology: Topology | null = null;
  const admin = createSql(pg.url("postgres"), { max: 1 });
  await admin.unsafe("create database watchpost");
  await admin.end();
  const databaseUrl = pg.url("watchpost");
  await migrate(databaseUrl);
  const sql = createSql(databaseUrl, { max: 4 });
  try {
    topology = mode === "scaled" ? await startScaled(databaseUrl, nats!.url, region) : await startAllInOne(databaseUrl, region);
    const org = await makeOrg(sql, "unlimited");
    const call = client(topology.apiUrl, { key: org.api_key });
    const channel = await call("POST", "/api/v1/alert-channels", { name: "soak", type: "webhook", config: { url: receiver.url } });
    if (channel.status !== 201) throw new Error(`channel: ${channel.status} ${JSON.stringify(channel.body)}`);
    const rule = await call("POST", "/api/v1/alert-rules", {
      name: "down",
      scope: { type: "all_monitors" },
      condition: { type: "status_change", to: ["down"] },
      channels: [{ channel_id: channel.body.id, delay_minutes: 0 }],
    });
    if (rule.status !== 201) throw new Error(`rule: ${rule.status} ${JSON.stringify(rule.body)}`);
    const specs = Array.from({ length: MONITORS }, (_, i) => ({
      config: { url: i < FLAPPING ? `${targets.url}/flap/${i}` : `${targets.url}/ok` },
      interval_seconds: INTERVAL_S,
      timeout_ms: 5000,
      regions: [region],
    }));
    await insertMonitors(sql, org.org_id, specs);

    // Warm-up: every monitor checked once and every flapping monitor's alert fired and cleared once, so
    // the window starts with every code path compiled and loaded (the first alerts load and compile
    // the delivery path: a one-time step of ~10 MB RSS in alerting processes, flat after it).
    await Bun.sleep(INTERVAL_S * 1000 + 5000);
    const warmUntil = Date.now() + 12 * INTERVAL_S * 1000;
    while (receiver.received() < 2 * FLAPPING && Date.now() < warmUntil) await Bun.sleep(1000);
    // RSS is sampled every 10 s: one reading swings ±10% with garbage collection, so growth compares the
    // median of the window's first fifth with the median of its last fifth.
    const rssSamples = new Map(topology.processes.map((p) => [p.name, [rssOf(p.proc.proc.pid)]]));
    // The JavaScript heap tells a leak in our objects (heap grows) from the allocator keeping freed pages (RSS alone grows).
    const heapSamples = new Map(await Promise.all(topology.processes.map(async (p) => [p.name, [await heapOf(p.metricsUrl)]] as [string, number[]])));
    // Storage is measured as growth over the window: empty partitions and index roots are a fixed cost.
    const bytesBefore = await storageBytes(sql);
    const [{ rowsBefore }] = await sql<{ rowsBefore: number }[]>`select count(*)::int as "rowsBefore" from check_results`;
    const from = Date.now();
    const end = from + MINUTES * 60_000;
    while (Date.now() < end) {
      await Bun.sleep(Math.min(10_000, end - Date.now()));
      for (const p of topology.processes) rssSamples.get(p.name)!.push(rssOf(p.proc.proc.pid));
      const heaps = await Promise.all(topology.processes.map((p) => heapOf(p.metricsUrl)));
      topology.processes.forEach((p, i) => heapSamples.get(p.name)!.push(heaps[i]!));
      const [{ n }] = await sql<{ n: number }[]>`select count(*)::int as n from check_results where scheduled_at >= ${new Date(from)}`;
      process.stdout.write(`  ${Math.round((Date.now() - from) / 1000)} s: ${n} results stored, ${receiver.received()} notifications\n`);
    }
    const to = Date.now();
    await topology.stopSchedulers();
    await Bun.sleep(5000);

    const window = await sql<{ n: number; unavailable: number; p50: number; p99: number; max: number }[]>`
      select count(*)::int as n, count(*) filter (where status = 'unavailable')::int as unavailable,
        percentile_cont(0.5) within group (order by extract(epoch from checked_at - scheduled_at) * 1000)::float8 as p50,
        percentile_cont(0.99) within group (order by extract(epoch from checked_at - scheduled_at) * 1000)::float8 as p99,
        max(extract(epoch from checked_at - scheduled_at) * 1000)::float8 as max
      from check_results where scheduled_at >= ${new Date(from)} and scheduled_at < ${new Date(to)} and status <> 'unavailable'`;
    const [{ total }] = await sql<{ total: number }[]>`select count(*)::int as total from check_results`;
    const [{ unavailable }] = await sql<{ unavailable: number }[]>`select count(*)::int as unavailable from check_results where scheduled_at >= ${new Date(from)} and scheduled_at < ${new Date(to)} and status = 'unavailable'`;
    const bytes = await storageBytes(sql);
    const w = window[0]!;
    const seconds = (to - from) / 1000;
    const owed = Math.round((MONITORS * seconds) / INTERVAL_S);
    console.log(`${mode}: checks/s ${(w.n / seconds).toFixed(1)} (${w.n} stored of ~${owed} due in ${seconds.toFixed(0)} s, ${unavailable} unavailable)`);
    console.log(`${mode}: scheduling deviation p50 ${w.p50?.toFixed(0)} ms, p99 ${w.p99?.toFixed(0)} ms, max ${w.max?.toFixed(0)} ms`);
    console.log(`${mode}: alert latency p50 ${pct(receiver.latencies, 50).toFixed(0)} ms, p99 ${pct(receiver.latencies, 99).toFixed(0)} ms (${receiver.latencies.length} alerts, ${receiver.received()} notifications)`);
    for (const p of topology.processes) {
      const samples = rssSamples.get(p.name)!;
      const fifth = Math.max(1, Math.floor(samples.length / 5));
      const a = median(samples.slice(0, fifth));
      const b = median(samples.slice(-fifth));
      const growth = a ? ((b - a) / a) * 100 : NaN;
      const heaps = heapSamples.get(p.name)!;
      const ha = median(heaps.slice(0, fifth));
      const hb = median(heaps.slice(-fifth));
      const heap = ha ? `; JS heap ${mb(ha)} → ${mb(hb)} (${hb >= ha ? "+" : ""}${(((hb - ha) / ha) * 100).toFixed(1)}%)` : "";
      // A short run measures warm-up (caches filling, code compiled) as much as growth; judge leaks on the full run.
      console.log(
        `${mode}: RSS ${p.name} start ${mb(a)}, end ${mb(b)} (medians of the first and last fifth of ${samples.length} samples), ` +
          `min ${mb(Math.min(...samples))}, max ${mb(Math.max(...samples))} (${growth >= 0 ? "+" : ""}${growth.toFixed(1)}%${growth > 10 ? ", GREW MORE THAN 10%" : ""})${heap}`,
      );
    }
    const grown = bytes - bytesBefore;
    const added = total - rowsBefore;
    console.log(
      `${mode}: PostgreSQL ${mb(bytes)} for ${total} results (check_results with indexes and rollups); ` +
        `the window added ${mb(grown)} for ${added} results: ${mb((grown / Math.max(1, added)) * 1e6)} per million results`,
    );
  } finally {
    await topology?.stop();
    await sql.end({ timeout: 1 }).catch(() => {});
    targets.stop();
    receiver.stop();
    await nats?.destroy();
    await pg.destroy();
  }
}

for (const mode of MODES) await soak(mode);
process.exit(0);
