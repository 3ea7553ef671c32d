/**
 * Scrape time of GET /api/v1/metrics (docs/metrics.md) on plain PostgreSQL (TEST_DATABASE_URL; a
 * database of its own, dropped after): one organisation with 10,000 monitors checked every minute from
 * `regions` regions, the last 15 minutes at one result a minute and the two hours before at one every
 * ten (so the hour's rollups hold two buckets per series), one ssl result in ten, 1% of series firing.
 * Prints the median of warm runs for the queries and the writer in-process and for the whole HTTP scrape
 * with an API key, gzip (as Prometheus asks) and uncompressed (target < 500 ms).
 * `--lag 1,6` then times the hour's rollups again with the rollup watermark that many minutes back (the raw rows
 * due since it read with the rollups, as with a closer whose step is that wide; the rollups are not reopened, so the
 * figures count those rows twice: a timing, not a result): what each raw minute costs a scrape.
 * Usage: bun bench/metrics-scrape.ts [monitors=10000] [regions=1] [runs=15] [--lag M,M…]   (BENCH_KEEP_DB=1 keeps the database)
 */
import { closeRollups } from "../domain/results/rollup-closer.ts";
import { rebuildRollups } from "../domain/results/rollups.ts";
import { listMonitorSeries } from "../domain/results/monitor-metrics.ts";
import { writeMonitorMetrics } from "../api/routes/metrics/prometheus-text.ts";
import { latestResults, LOOKBACK_INTERVALS, LOOKBACK_SLACK_SECONDS, hourFigures } from "../db/queries/monitor-metrics.ts";
import { ensurePartition } from "../db/results/maintenance.ts";
import { createTestDatabase } from "../tests/support/db.ts";
import { makeOrg, startTestApi } from "../tests/support/api.ts";

const lagAt = process.argv.indexOf("--lag");
const LAGS = lagAt > 0 ? process.argv[lagAt + 1]!.split(",").map(Number) : [];
const args = lagAt > 0 ? process.argv.slice(2, lagAt).concat(process.argv.slice(lagAt + 2)) : process.argv.slice(2);
const MONITORS = Number(args[0] ?? 10_000);
const REGIONS = Number(args[1] ?? 1);
const RUNS = Number(args[2] ?? 15);
const TARGET_MS = 500;

async function median(label: string, target: number, fn: () => Promise<unknown>): Promise<void> {
  for (let i = 0; i < 3; i++) await fn();
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    await fn();
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  const med = times[Math.floor(times.length / 2)]!;
  const verdict = Number.isFinite(target) ? `target < ${target} ms: ${med < target ? "OK" : "SLOW"}` : "for comparison";
  console.log(`${label.padEnd(62)} median ${med.toFixed(1).padStart(7)} ms  (min ${times[0]!.toFixed(1)}, max ${times.at(-1)!.toFixed(1)}; ${verdict})`);
}

const db = await createTestDatabase();
const api = await startTestApi({}, db, undefined, { workerRegions: [], alerting: false });
try {
  const sql = db.sql;
  const org = await makeOrg(sql, "business");
  const now = Date.now();
  for (let d = -1; d <= 1; d++) await ensurePartition(sql, new Date(now + d * 86_400_000).toISOString().slice(0, 10));

  let t0 = performance.now();
  await sql`
    insert into monitors (id, org_id, name, type, config, interval_seconds, timeout_ms, regions, tags)
    select 'mon_bench_' || lpad(i::text, 6, '0'), ${org.org_id}, 'Monitor ' || i || ' "shop"',
      case when i % 10 = 0 then 'ssl' else 'http' end, '{"url": "https://example.com"}', 60, 30000,
      (select array_agg('region-' || r) from generate_series(1, ${REGIONS}) r), array['team-' || (i % 20), 'env-' || (i % 3)]
    from generate_series(1, ${MONITORS}) i`;
  const minute = Math.floor(now / 60_000) * 60_000;
  const recent = Array.from({ length: 15 }, (_, k) => new Date(minute - k * 60_000));
  const older = Array.from({ length: 11 }, (_, k) => new Date(minute - 15 * 60_000 - (k + 1) * 600_000));
  await sql`
    insert into check_results (id, job_id, org_id, monitor_id, location, location_type, scheduled_at, checked_at, status, duration_ms, error, data)
    select gen_random_uuid(), m.id || '-' || r.region || '-' || extract(epoch from t.at)::bigint, m.org_id, m.id, r.region, 'region', t.at, t.at + interval '1 second',
      s.status, s.ms, case when s.status in ('down', 'timeout') then s.status end,
      case when m.type = 'ssl' then jsonb_build_object('ssl_days_remaining', 30 + (hashtext(m.id) & 255)) else '{"status_code": 200}'::jsonb end
    from monitors m
    cross join lateral unnest(m.regions) as r(region)
    cross join lateral (select at::timestamptz as at from unnest(${[...recent, ...older].map((d) => d.toISOString())}::text[]) as a(at)) t
    cross join lateral (select case when x < 0.96 then 'up' when x < 0.98 then 'degraded' when x < 0.99 then 'down' when x < 0.995 then 'timeout' else 'unavailable' end as status,
      (20 + x * x * 2000)::int as ms from (select abs(hashtext(m.id || r.region || t.at::text)) / 2147483647.0 as x) h) s
    where m.org_id = ${org.org_id}`;
  const ids = (await sql<{ id: string }[]>`select id from monitors where org_id = ${org.org_id}`).map((r) => r.id);
  await rebuildRollups(sql, org.org_id, ids, new Date(now - 3 * 3600_000), new Date(now + 3600_000));
  // Plain PostgreSQL: the rollups closed up to where the scheduler's closer keeps them (30 s to 90 s behind now).
  await closeRollups(sql, new Date(), { maxSteps: 1_000_000 });
  const [rule] = await sql<{ id: string }[]>`
    insert into alert_rules (id, org_id, name, scope, condition, confirmation, notifications)
    values ('rule_bench', ${org.org_id}, 'down', '{"type": "all"}', '{"type": "status_change", "to": ["down"]}', '{"consecutive": 1}', '{}') returning id`;
  await sql`
    insert into alert_states (org_id, rule_id, monitor_id, region, firing, consecutive, incarnation, fired_at, state)
    select ${org.org_id}, ${rule!.id}, m.id, m.regions[1], true, 1, 1, now(), '{}' from monitors m where m.org_id = ${org.org_id} and right(m.id, 2) = '00'`;
  for (const table of ["monitors", "check_results", "check_results_hourly", "alert_states"]) await sql`vacuum analyze ${sql(table)}`;
  const [{ n }] = (await sql`select count(*)::int as n from check_results where org_id = ${org.org_id}`) as unknown as [{ n: number }];
  console.log(`loaded ${MONITORS.toLocaleString("en")} monitors × ${REGIONS} region(s), ${n.toLocaleString("en")} results, rollups and alert states in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

  const actor = { orgId: org.org_id, userId: org.user_id, identity: { kind: "api_key" } as never, ip: "127.0.0.1" };
  t0 = performance.now();
  const series = await listMonitorSeries({ sql, actor });
  const text = writeMonitorMetrics(series);
  const samples = text.split("\n").filter((l) => l && !l.startsWith("#")).length;
  console.log(`one scrape: ${series.length.toLocaleString("en")} series, ${samples.toLocaleString("en")} samples, ${(text.length / 1e6).toFixed(1)} MB (cold ${(performance.now() - t0).toFixed(0)} ms)`);

  await median("queries only (4 set-based queries)", Number.POSITIVE_INFINITY, () => listMonitorSeries({ sql, actor }));
  const longest = 60 * LOOKBACK_INTERVALS + LOOKBACK_SLACK_SECONDS;
  await median("  of which: newest result per (monitor, location)", Number.POSITIVE_INFINITY, () => latestResults(sql, org.org_id, longest));
  await median("  of which: the hour's rollups", Number.POSITIVE_INFINITY, () => hourFigures(sql, org.org_id, true));
  await median("text writer only", Number.POSITIVE_INFINITY, async () => writeMonitorMetrics(series));
  for (const encoding of ["gzip", "identity"]) {
    await median(`GET /api/v1/metrics over HTTP, ${encoding}`, TARGET_MS, async () => {
      const res = await fetch(`${api.url}/api/v1/metrics`, { headers: { authorization: `Bearer ${org.api_key}`, "accept-encoding": encoding }, decompress: false });
      if (res.status !== 200) throw new Error(`scrape answered ${res.status}`);
      await res.arrayBuffer();
    });
  }
  for (const lag of LAGS) {
    await sql`update rollup_watermark set closed_through = ${new Date(minute - lag * 60_000)}`;
    const [{ raw }] = await sql<{ raw: number }[]>`
      select count(*)::int as raw from check_results where org_id = ${org.org_id} and scheduled_at >= (select closed_through from rollup_watermark)`;
    const t1 = process.cpuUsage();
    await median(`the hour's rollups, watermark ${lag} min back (${raw.toLocaleString("en")} raw rows)`, Number.POSITIVE_INFINITY, () => hourFigures(sql, org.org_id, true));
    const bun = process.cpuUsage(t1);
    console.log(`  Bun CPU over its ${RUNS + 3} runs: ${((bun.user + bun.system) / 1000 / (RUNS + 3)).toFixed(1)} ms per scrape`);
  }
  const zipped = await fetch(`${api.url}/api/v1/metrics`, { headers: { authorization: `Bearer ${org.api_key}`, "accept-encoding": "gzip" }, decompress: false });
  console.log(`gzip body: ${((await zipped.arrayBuffer()).byteLength / 1e6).toFixed(1)} MB`);
} finally {
  await api.stop();
  if (process.env.BENCH_KEEP_DB) console.log(`kept ${db.url}`);
  else await db.drop();
}
