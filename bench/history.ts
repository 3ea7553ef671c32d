/**
 * Ninety days of history on both storage paths (#24 item 8). For plain PostgreSQL (--plain, default
 * TEST_DATABASE_URL's server) and TimescaleDB (--timescale, default 127.0.0.1:5441), each in a
 * database of its own (dropped after unless --keep), migrated by db/migrate.ts:
 *  - backfills N monitors × 90 days of hourly aggregates (synthetic, COPY) and the last 7 days of
 *    raw results, one per monitor every --interval seconds (synthetic, COPY; TimescaleDB: the rollups
 *    into the continuous aggregates' materialization hypertables); the raw days' rollups
 *    are built from the raw rows (plain: rebuildRollups; TimescaleDB: refresh_continuous_aggregate);
 *  - prints bytes per raw row (plain partitions; TimescaleDB before and after compress_chunk on
 *    every chunk older than a day, with bytes by column), whether a late result and a redelivery
 *    into a compressed chunk are stored once, the 90-day uptime of 1 and of 100 monitors and the overview
 *    (24-hour uptime of every monitor in one call) through domain/results/uptime.ts, the dashboard's
 *    overview endpoint query (domain/monitors/overview.ts: counts, the first page of 100 monitors with
 *    24-hour uptime and a bar of their 60 latest results), and how long
 *    the compression, retention and maintenance jobs take while an ingest probe (storeResults, 20
 *    results every 25 ms) measures whether they hold up ingest.
 * Usage: bun bench/history.ts [--monitors 200] [--interval 60] [--runs 15] [--only plain|timescale] [--keep]
 *   [--resume URL: a database a run killed after its hourly COPY left behind; same flags, same UTC day]
 */
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { createSql, type Sql } from "../db/client.ts";
import { migrate } from "../db/migrate.ts";
import { ensurePartition, refreshContinuousAggregates, rollupRelations } from "../db/results/maintenance.ts";
import { storageMode } from "../db/results/storage-mode.ts";
import { HISTOGRAM_SIZE, histogramIndex } from "../domain/results/histogram.ts";
import { storeResults } from "../domain/results/ingest.ts";
import type { Actor } from "../domain/access/actor.ts";
import { monitorsOverview } from "../domain/monitors/overview.ts";
import { enforceRetention, maintainPartitions } from "../domain/results/retention.ts";
import { closeRollups } from "../domain/results/rollup-closer.ts";
import { rebuildRollups } from "../domain/results/rollups.ts";
import { DAY_MS, HOUR_MS } from "../domain/results/segments.ts";
import { makeResult, prng } from "../domain/results/test-fixtures.ts";
import { uptime, uptimeForMonitors } from "../domain/results/uptime.ts";
import { jobId } from "../schemas/messages/check-messages.ts";

const { values: args } = parseArgs({
  options: {
    monitors: { type: "string", default: "200" },
    interval: { type: "string", default: "60" },
    runs: { type: "string", default: "15" },
    only: { type: "string" },
    plain: { type: "string", default: process.env.TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres" },
    timescale: { type: "string", default: process.env.TIMESCALE_TEST_URL ?? "postgres://postgres@127.0.0.1:5441/postgres" },
    keep: { type: "boolean", default: false },
    /** A database an interrupted run kept (killed after its hourly COPY) with the same flags on the same UTC day: continue from the daily rollups. */
    resume: { type: "string" },
  },
});
const MONITORS = Number(args.monitors);
const INTERVAL_S = Number(args.interval);
const RUNS = Number(args.runs);
const HISTORY_DAYS = 90;
const RAW_DAYS = 7;
const LOCATION = "eu-west";

const now = new Date();
const today = Math.floor(now.getTime() / DAY_MS) * DAY_MS;
const rawStart = today - RAW_DAYS * DAY_MS;
const historyStart = today - HISTORY_DAYS * DAY_MS;
const rawEnd = Math.floor(now.getTime() / (INTERVAL_S * 1000)) * INTERVAL_S * 1000;

const secs = (t0: number) => (performance.now() - t0) / 1000;
const fmt = (n: number) => Math.round(n).toLocaleString("en");
const line = (label: string, value: string) => console.log(`  ${label.padEnd(60)} ${value}`);
/** The 1-minute load average: the machine is shared, so every timing says how busy it was. */
const load = () => readFileSync("/proc/loadavg", "utf8").split(" ")[0];

async function createDatabase(adminUrl: string, prefix: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const admin = createSql(adminUrl, { max: 1 });
  const name = `${prefix}_${Date.now().toString(36)}`;
  await admin.unsafe(`create database ${name}`);
  const u = new URL(adminUrl);
  u.pathname = `/${name}`;
  return {
    url: u.toString(),
    async drop() {
      await admin.unsafe(`drop database if exists ${name} with (force)`);
      await admin.end({ timeout: 2 });
    },
  };
}

/** One organisation on the Starter plan (90-day retention) with N monitors, in one statement. */
async function seedMonitors(sql: Sql): Promise<{ orgId: string; monitorIds: string[] }> {
  const { orgId, monitorIds } = monitorsOf();
  await sql`insert into organisations (id, name, plan_id) values (${orgId}, ${"History bench"}, ${"starter"})`;
  await sql`
    insert into monitors (id, org_id, name, type, config, interval_seconds, timeout_ms)
    select id, ${orgId}, id, 'http', ${sql.json({ url: "https://example.com" })}, ${INTERVAL_S}, 30000
    from unnest(${sql.array(monitorIds)}::text[]) as id`;
  return { orgId, monitorIds };
}

/** The organisation and monitors seedMonitors made (for --resume). */
function monitorsOf(): { orgId: string; monitorIds: string[] } {
  return { orgId: "org_history_bench", monitorIds: Array.from({ length: MONITORS }, (_, i) => `mon_hist_${String(i).padStart(6, "0")}`) };
}

/** A kept database to continue in (--resume); dropped at the end unless --keep, like a fresh one. */
function resumed(url: string): { url: string; drop: () => Promise<void> } {
  return {
    url,
    async drop() {
      const u = new URL(url);
      const name = u.pathname.slice(1);
      u.pathname = "/postgres";
      const admin = createSql(u.toString(), { max: 1 });
      await admin.unsafe(`drop database if exists "${name}" with (force)`);
      await admin.end({ timeout: 2 });
    },
  };
}

/** Streams COPY text produced by `rows` (a generator of lines) into `target`. */
async function copyLines(sql: Sql, target: string, columns: string[], rows: Iterable<string>): Promise<number> {
  const stream = await sql.unsafe(`copy ${target} (${columns.join(", ")}) from stdin`).writable();
  let chunk = "";
  let n = 0;
  for (const r of rows) {
    chunk += r;
    n++;
    if (chunk.length > 1 << 20) {
      if (!stream.write(chunk)) await new Promise((res) => stream.once("drain", res));
      chunk = "";
    }
  }
  await new Promise<void>((resolve, reject) => stream.end(chunk, (err?: Error | null) => (err ? reject(err) : resolve())));
  return n;
}

const RAW_COLUMNS = ["id", "job_id", "org_id", "monitor_id", "location", "location_type", "scheduled_at", "checked_at", "status", "duration_ms", "error", "data"];
const ROLLUP_COLUMNS = ["org_id", "monitor_id", "location", "bucket", "total", "up", "down", "degraded", "timeout", "unavailable", "duration_sum", "duration_max", "hist"];

/** A status and a duration like a healthy HTTP check's (about 99.2 % up). */
function draw(rand: () => number): { status: string; ms: number } {
  const x = rand();
  const status = x < 0.985 ? "up" : x < 0.992 ? "degraded" : x < 0.996 ? "down" : x < 0.998 ? "timeout" : "unavailable";
  return { status, ms: status === "unavailable" ? 0 : status === "timeout" ? 30_000 : Math.floor(40 + rand() * rand() * 600) };
}

function* rawRows(orgId: string, monitorIds: string[], seed: number): Generator<string> {
  const rand = prng(seed);
  for (const m of monitorIds) {
    for (let t = rawStart; t < rawEnd; t += INTERVAL_S * 1000) {
      const { status, ms } = draw(rand);
      const error = status === "down" ? "HTTP 503" : status === "timeout" ? "timeout after 30000 ms" : "\\N";
      const code = status === "down" ? 503 : 200;
      yield `\\N\t${jobId(m, LOCATION, t)}\t${orgId}\t${m}\t${LOCATION}\tregion\t${new Date(t).toISOString()}\t${new Date(t + ms + 5).toISOString()}\t${status}\t${ms}\t${error}\t{"status_code": ${code}}\n`;
    }
  }
}

interface Rollup {
  total: number;
  counts: number[];
  sum: number;
  max: number | null;
  hist: number[];
}

function rollupLine(orgId: string, m: string, bucket: number, r: Rollup): string {
  return `${orgId}\t${m}\t${LOCATION}\t${new Date(bucket).toISOString()}\t${r.total}\t${r.counts.join("\t")}\t${r.sum}\t${r.max ?? "\\N"}\t{${r.hist.join(",")}}\n`;
}

/** Hourly rollups (and, with `daily`, their daily sums) of synthetic checks over [historyStart, rawStart). */
function* rollupRows(orgId: string, monitorIds: string[], seed: number, daily: boolean): Generator<string> {
  const rand = prng(seed);
  const perHour = Math.max(1, Math.round(3600 / INTERVAL_S));
  const order = ["up", "down", "degraded", "timeout", "unavailable"];
  for (const m of monitorIds) {
    for (let day = historyStart; day < rawStart; day += DAY_MS) {
      const d: Rollup = { total: 0, counts: [0, 0, 0, 0, 0], sum: 0, max: null, hist: new Array<number>(HISTOGRAM_SIZE).fill(0) };
      for (let h = day; h < day + DAY_MS; h += HOUR_MS) {
        const r: Rollup = { total: perHour, counts: [0, 0, 0, 0, 0], sum: 0, max: null, hist: new Array<number>(HISTOGRAM_SIZE).fill(0) };
        // Sample a few checks and scale, so generating 90 days stays cheap.
        for (let i = 0; i < perHour; i++) {
          const { status, ms } = i < 4 ? draw(rand) : { status: "up", ms: 40 + ((i * 37) % 300) };
          r.counts[order.indexOf(status)]!++;
          if (status !== "unavailable") {
            r.sum += ms;
            r.max = Math.max(r.max ?? 0, ms);
            r.hist[histogramIndex(ms)]!++;
          }
        }
        if (!daily) yield rollupLine(orgId, m, h, r);
        d.total += r.total;
        for (let i = 0; i < 5; i++) d.counts[i]! += r.counts[i]!;
        d.sum += r.sum;
        if (r.max !== null) d.max = Math.max(d.max ?? 0, r.max);
        for (let i = 0; i < HISTOGRAM_SIZE; i++) d.hist[i]! += r.hist[i]!;
      }
      if (daily) yield rollupLine(orgId, m, day, d);
    }
  }
}

/** COPY in two parallel streams (one per core), each over half the monitors. */
async function copyParallel(sql: Sql, target: string, columns: string[], gen: (ids: string[], seed: number) => Iterable<string>, ids: string[]): Promise<number> {
  const half = Math.ceil(ids.length / 2);
  const counts = await Promise.all([ids.slice(0, half), ids.slice(half)].map((part, i) => copyLines(sql, target, columns, gen(part, i + 1))));
  return counts[0]! + counts[1]!;
}

async function timed<T>(label: string, fn: () => Promise<T>): Promise<T> {
  const t0 = performance.now();
  const out = await fn();
  line(label, `${secs(t0).toFixed(1)} s (load ${load()})`);
  return out;
}

/** CPU ticks (1/100 s) a process has used, user + system, from /proc (the backend runs on this machine). */
function cpuTicks(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return Number(f[11]) + Number(f[12]);
}

/**
 * Median wall time of `fn` over RUNS warm runs on one connection, and the CPU each call cost the
 * PostgreSQL backend (from /proc) and Bun: on a shared, loaded machine the wall time mostly measures
 * the wait for a core, the CPU time what the read itself needs.
 */
async function median(reads: Sql, label: string, target: number | null, fn: (s: Sql) => Promise<unknown>): Promise<number> {
  const [{ pid }] = (await reads`select pg_backend_pid() as pid`) as unknown as [{ pid: number }];
  for (let i = 0; i < 2; i++) await fn(reads);
  const times: number[] = [];
  const ticks0 = cpuTicks(pid);
  const bun0 = process.cpuUsage();
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    await fn(reads);
    times.push(performance.now() - t0);
  }
  const pgMs = ((cpuTicks(pid) - ticks0) * 10) / RUNS;
  const bun = process.cpuUsage(bun0);
  const bunMs = (bun.user + bun.system) / 1000 / RUNS;
  times.sort((a, b) => a - b);
  const med = times[Math.floor(times.length / 2)]!;
  const verdict = target === null ? "" : `; goal < ${target} ms: ${med < target ? "MET" : "MISSED"}`;
  line(label, `median ${med.toFixed(1)} ms (min ${times[0]!.toFixed(1)}, max ${times.at(-1)!.toFixed(1)}${verdict}; load ${load()})`);
  line("", `CPU per call: PostgreSQL ${pgMs.toFixed(1)} ms + Bun ${bunMs.toFixed(1)} ms`);
  return med;
}

/** Stores 20 current results every 25 ms through storeResults until stopped; returns the latencies. */
function ingestProbe(sql: Sql, orgId: string, monitorIds: string[]): { stop: () => Promise<number[]> } {
  const lat: number[] = [];
  let running = true;
  let k = 0;
  const loop = (async () => {
    while (running) {
      const at = new Date();
      const batch = Array.from({ length: 20 }, () => makeResult(orgId, monitorIds[k++ % monitorIds.length]!, at, "up"));
      const t0 = performance.now();
      await storeResults(sql, batch);
      lat.push(performance.now() - t0);
      await Bun.sleep(25);
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return lat;
    },
  };
}

const pct = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? NaN;
};
const latencies = (xs: number[]) => `ingest of 20: n=${xs.length}, p50 ${pct(xs, 0.5).toFixed(1)} ms, p99 ${pct(xs, 0.99).toFixed(1)} ms, max ${Math.max(...xs).toFixed(1)} ms`;

/** Runs `job` while the ingest probe runs on its own connections; prints the job's time and the probe's latencies. */
async function underIngest(sql: Sql, orgId: string, monitorIds: string[], label: string, job: () => Promise<unknown>): Promise<void> {
  const probe = ingestProbe(sql, orgId, monitorIds);
  await Bun.sleep(300);
  const t0 = performance.now();
  const out = await job();
  const took = secs(t0);
  await Bun.sleep(300);
  line(label, `${took.toFixed(2)} s; ${latencies(await probe.stop())}; load ${load()}`);
  if (out && typeof out === "object" && !Array.isArray(out)) line("", JSON.stringify(out, (_k, v: unknown) => (Array.isArray(v) ? v.length : v)));
}

/**
 * A result redelivered days late, and a straggler never stored, both for a due time in a compressed
 * chunk: ingest must store the straggler and skip the copy (the unique key is checked against the
 * compressed batches), within TimescaleDB's limit on tuples decompressed per statement.
 */
async function lateIntoCompressed(sql: Sql, orgId: string, monitorIds: string[]): Promise<void> {
  const m = monitorIds[Math.floor(monitorIds.length / 2)]!;
  const due = rawStart + DAY_MS + 7 * INTERVAL_S * 1000;
  const copy = { ...makeResult(orgId, m, new Date(due), "up"), job_id: jobId(m, LOCATION, due), location: LOCATION };
  const straggler = { ...copy, job_id: jobId(m, "us-east", due), location: "us-east" };
  const t0 = performance.now();
  try {
    const out = await storeResults(sql, [copy, straggler]);
    line("late results into a compressed chunk (1 copy, 1 new)", `${(performance.now() - t0).toFixed(1)} ms; stored ${out.inserted.length} (expected 1); load ${load()}`);
  } catch (err) {
    line("late results into a compressed chunk (1 copy, 1 new)", `FAILED after ${(performance.now() - t0).toFixed(1)} ms: ${(err as Error).message}`);
  }
}

async function rawBytes(sql: Sql, timescale: boolean): Promise<{ total: number; heap: number }> {
  if (timescale) {
    const [r] = await sql<{ total: string; heap: string }[]>`select total_bytes as total, table_bytes + coalesce(toast_bytes, 0) as heap from hypertable_detailed_size('check_results')`;
    return { total: Number(r!.total), heap: Number(r!.heap) };
  }
  const [r] = await sql<{ total: string; heap: string }[]>`
    select sum(pg_total_relation_size(inhrelid)) as total, sum(pg_table_size(inhrelid)) as heap
    from pg_inherits where inhparent = 'check_results'::regclass`;
  return { total: Number(r!.total), heap: Number(r!.heap) };
}

async function benchOne(kind: "plain" | "timescale", adminUrl: string): Promise<void> {
  console.log(`\n== ${kind}: ${fmt(MONITORS)} monitors, ${HISTORY_DAYS} days of hourly rollups, ${RAW_DAYS} days of raw results every ${INTERVAL_S} s`);
  const db = args.resume ? resumed(args.resume) : await createDatabase(adminUrl, `wp_hist_${kind}`);
  const sql = createSql(db.url, { max: 6 });
  try {
    const { timescale } = args.resume ? { timescale: (await storageMode(sql)) === "timescale" } : await migrate(db.url, { lock: false });
    if (timescale !== (kind === "timescale")) throw new Error(`${adminUrl}: expected ${kind} storage, migrate reported timescale=${timescale}`);
    const { orgId, monitorIds } = args.resume ? monitorsOf() : await seedMonitors(sql);
    if (!timescale && !args.resume) for (let t = rawStart - DAY_MS; t <= today + 2 * DAY_MS; t += DAY_MS) await ensurePartition(sql, new Date(t).toISOString().slice(0, 10));

    let t0 = performance.now();
    if (!args.resume) {
      const raw = await copyParallel(sql, "check_results", RAW_COLUMNS, (ids, seed) => rawRows(orgId, ids, seed), monitorIds);
      line(`COPY raw results`, `${fmt(raw)} rows in ${secs(t0).toFixed(1)} s (${fmt(raw / secs(t0))}/s; load ${load()})`);
    }

    t0 = performance.now();
    // TimescaleDB: straight into each continuous aggregate's materialization hypertable (refreshing the daily
    // one from 80 days of hourly rows would cost more than the backfill itself).
    const target = async (view: string) => {
      if (!timescale) return view;
      const [m] = await sql<{ rel: string }[]>`
        select format('%I.%I', h.schema_name, h.table_name) as rel from _timescaledb_catalog.continuous_agg ca
        join _timescaledb_catalog.hypertable h on h.id = ca.mat_hypertable_id where ca.user_view_name = ${view}`;
      return m!.rel;
    };
    const hourlyRows = (ids: string[], seed: number) => rollupRows(orgId, ids, seed + 10, false);
    const hourly = args.resume ? 0 : await copyParallel(sql, await target("check_results_hourly"), ROLLUP_COLUMNS, hourlyRows, monitorIds);
    await copyParallel(sql, await target("check_results_daily"), ROLLUP_COLUMNS, (ids, seed) => rollupRows(orgId, ids, seed + 10, true), monitorIds);
    line(`COPY ${args.resume ? "" : "hourly and "}daily rollups (days ${HISTORY_DAYS} to ${RAW_DAYS + 1} ago)`, `${fmt(hourly)} hourly rows in ${secs(t0).toFixed(1)} s (load ${load()})`);

    await timed(timescale ? "refresh_continuous_aggregate over the raw days" : "rebuildRollups over the raw days", async () => {
      if (timescale) {
        await refreshContinuousAggregates(sql, new Date(rawStart), new Date(now.getTime() - HOUR_MS));
      } else {
        for (let i = 0; i < monitorIds.length; i += 500) {
          await rebuildRollups(sql, orgId, monitorIds.slice(i, i + 500), new Date(rawStart), new Date(today + DAY_MS));
        }
        // The rollups closed up to where the scheduler's closer keeps them (30 s to 90 s behind now).
        await closeRollups(sql, new Date(), { maxSteps: 1_000_000 });
      }
    });
    await timed("vacuum analyze", async () => {
      await sql`vacuum analyze check_results`;
      if (!timescale) await sql`vacuum analyze check_results_hourly, check_results_daily`;
      // Both materialization hypertables: a daily chunk without statistics makes the planner read it
      // through its (org_id, bucket) index, every monitor of the organisation, instead of the monitor index.
      else for (const rel of await rollupRelations(sql, true)) await sql.unsafe(`vacuum analyze ${rel.map((x) => `"${x}"`).join(".")}`);
    });

    const [count] = await sql<{ n: string }[]>`select count(*) as n from check_results`;
    const rows = Number(count!.n);
    const before = await rawBytes(sql, timescale);
    line(`bytes per raw row (${timescale ? "TimescaleDB uncompressed" : "plain partitions"})`, `${(before.total / rows).toFixed(1)} with indexes, ${(before.heap / rows).toFixed(1)} heap+toast (${fmt(rows)} rows, ${(before.total / 2 ** 20).toFixed(0)} MiB)`);

    if (timescale) {
      const chunks = await sql<{ c: string }[]>`select c::text from show_chunks('check_results', older_than => ${new Date(now.getTime() - DAY_MS)}::timestamptz) c`;
      await underIngest(sql, orgId, monitorIds, `compress_chunk on ${chunks.length} chunks older than a day`, async () => {
        for (const { c } of chunks) await sql`select compress_chunk(${c}::regclass)`;
      });
      const [s] = await sql<{ before: string; after: string; rows: string }[]>`
        select sum(before_compression_total_bytes) as before, sum(after_compression_total_bytes) as after,
          (select count(*) from check_results where scheduled_at < (select max(range_end) from timescaledb_information.chunks where hypertable_name = 'check_results' and is_compressed)) as rows
        from chunk_compression_stats('check_results') where compression_status = 'Compressed'`;
      const crow = Number(s!.rows);
      const per = Number(s!.after) / crow;
      const [cc] = await sql<{ rel: string }[]>`
        select format('%I.%I', c.schema_name, c.table_name) as rel from _timescaledb_catalog.chunk c
        join _timescaledb_catalog.hypertable h on h.id = c.hypertable_id
        where h.table_name like '\_compressed\_hypertable\_%' order by c.id limit 1`;
      const cols = ["id", "job_id", "checked_at", "duration_ms", "scheduled_at", "status", "error", "data"];
      const [byCol] = await sql.unsafe(`select ${cols.map((c) => `sum(pg_column_size(${c}))::float8 / sum(_ts_meta_count) as ${c}`).join(", ")} from ${cc!.rel}`);
      line("  (compressed bytes per row by column, one chunk)", cols.map((c) => `${c} ${Number((byCol as Record<string, number>)[c]).toFixed(2)}`).join(", "));
      line("bytes per raw row (TimescaleDB compressed)", `${per.toFixed(1)} (${fmt(crow)} rows in compressed chunks, ${(Number(s!.before) / crow).toFixed(1)} before; goal <= 20: ${per <= 20 ? "MET" : "MISSED"})`);
      await sql`analyze check_results`;
      await lateIntoCompressed(sql, orgId, monitorIds);
    }

    const one = monitorIds[0]!;
    const range = { from: new Date(now.getTime() - HISTORY_DAYS * DAY_MS), to: now };
    const hundred = monitorIds.slice(0, 100);
    const reads = createSql(db.url, { max: 1 });
    await median(reads, "90-day uptime, one monitor (uptime)", null, (s) => uptime(s, orgId, one, range));
    await median(reads, `90-day uptime, ${hundred.length} monitors (uptimeForMonitors)`, 50, (s) => uptimeForMonitors(s, orgId, hundred, range));
    const check = await uptimeForMonitors(sql, orgId, [one], range);
    line("  (90-day figures of the first monitor)", `${fmt(check[one]!.total)} results, ${check[one]!.uptime_pct?.toFixed(3)} % up`);
    await median(reads, `overview: 24-hour uptime of all ${fmt(MONITORS)} monitors in one call`, 1000, (s) => uptimeForMonitors(s, orgId, monitorIds, "24h"));
    const actor: Actor = { orgId, userId: "usr_bench", ip: "127.0.0.1", identity: { kind: "api_key", keyId: "key_bench", userId: "usr_bench", orgId, roleId: "owner", rolePermissions: [], scopes: [] } };
    await median(reads, `GET /monitors/overview (monitorsOverview, page of 100 of ${fmt(MONITORS)}, 60 bars)`, 1000, (s) =>
      monitorsOverview({ sql: s, actor }, {}, { limit: 100, offset: 0, bars: 60 }),
    );
    await reads.end({ timeout: 2 });

    const probe = ingestProbe(sql, orgId, monitorIds);
    await Bun.sleep(3000);
    line("ingest probe, idle (3 s)", latencies(await probe.stop()));
    // The next day's runs: the oldest day of rollups falls out of the Starter plan's 90 days.
    const tomorrow = new Date(now.getTime() + DAY_MS);
    if (timescale) {
      const jobs = await sql<{ job_id: number; proc_name: string; hypertable_name: string }[]>`
        select j.job_id, j.proc_name, coalesce(ca.view_name, j.hypertable_name) as hypertable_name
        from timescaledb_information.jobs j
        left join timescaledb_information.continuous_aggregates ca on ca.materialization_hypertable_name = j.hypertable_name
        where j.proc_name in ('policy_retention', 'policy_compression', 'policy_refresh_continuous_aggregate') order by j.job_id`;
      for (const j of jobs) await underIngest(sql, orgId, monitorIds, `CALL run_job(${j.job_id}) ${j.proc_name} on ${j.hypertable_name}`, () => sql`call run_job(${j.job_id})`);
    }
    await underIngest(sql, orgId, monitorIds, "enforceRetention (one day of rollups past 90 days)", () => enforceRetention(sql, tomorrow));
    await underIngest(sql, orgId, monitorIds, "maintainPartitions (longest retention 90 days)", () => maintainPartitions(sql, tomorrow));
  } finally {
    await sql.end({ timeout: 5 });
    if (args.keep) console.log(`kept ${db.url}`);
    else await db.drop();
  }
}

const t0 = performance.now();
if (args.only !== "timescale") await benchOne("plain", args.plain!);
if (args.only !== "plain") await benchOne("timescale", args.timescale!);
console.log(`\ndone in ${secs(t0).toFixed(0)} s`);
