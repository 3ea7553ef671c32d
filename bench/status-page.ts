/**
 * Public status-page figures on plain PostgreSQL (TEST_DATABASE_URL; a database of its own, dropped after):
 * a page of 50 components (one monitor each) over 90 days of one-minute results (6.5 M rows, loaded with
 * COPY into daily partitions and rolled up). Prints
 *  1. render time of the page without the render cache (all queries + HTML; the finished days' bars come from
 *     their 10-minute cache, as they do in the server), warm database: p50/p99 (target p99 < 50 ms); and fully cold;
 *  2. requests/s of GET /status/<slug> under autocannon against an API in its own process (target ≥ 1,000/s),
 *     plain and gzip, and of the JSON view;
 *  3. cache correctness under load: a monitor's status flips while autocannon runs; how long until the page shows it.
 * Usage: bun bench/status-page.ts [components=50] [days=90] [seconds=10]   (BENCH_KEEP_DB=1 keeps the database)
 */
import autocannon from "autocannon";
import type { Sql } from "../db/client.ts";
import { closeRollups } from "../domain/results/rollup-closer.ts";
import { rebuildRollups } from "../domain/results/rollups.ts";
import { DAY_MS } from "../domain/results/segments.ts";
import { prng } from "../domain/results/test-fixtures.ts";
import { clearBarHistory } from "../domain/status-pages/bar-history.ts";
import { buildPublicPage, themeOf } from "../domain/status-pages/public-model.ts";
import { renderStatusHtml } from "../domain/status-pages/render-html.ts";
import { findPageBySlug } from "../db/queries/status-pages.ts";
import { ensurePartition } from "../db/results/maintenance.ts";
import { client, makeOrg, startTestApi } from "../tests/support/api.ts";
import { createSql } from "../db/client.ts";
import { createTestDatabase, type TestDatabase } from "../tests/support/db.ts";

const COMPONENTS = Number(process.argv[2] ?? 50);
const DAYS = Number(process.argv[3] ?? 90);
const SECONDS = Number(process.argv[4] ?? 10);

const esc = (v: string | null) => (v === null ? "\\N" : v.replace(/\\/g, "\\\\").replace(/\t/g, "\\t").replace(/\n/g, "\\n"));

/** COPYs one result a minute over [start, end) for one monitor, in one stream. */
async function copyMonitor(sql: Sql, orgId: string, monitorId: string, start: number, end: number, seed: number): Promise<number> {
  const rand = prng(seed);
  const stream = await sql`copy check_results (id, job_id, org_id, monitor_id, location, location_type, scheduled_at, checked_at, status, duration_ms, error, data) from stdin`.writable();
  let n = 0;
  let chunk = "";
  for (let t = start; t < end; t += 60_000, n++) {
    const x = rand();
    const status = x < 0.97 ? "up" : x < 0.98 ? "degraded" : x < 0.99 ? "down" : x < 0.995 ? "timeout" : "unavailable";
    const ms = status === "unavailable" ? 0 : Math.floor(20 + rand() * rand() * 2000);
    const error = status === "down" || status === "timeout" ? status : null;
    chunk += `\\N\tjob_${monitorId}_${t}\t${orgId}\t${monitorId}\teu-west\tregion\t${new Date(t).toISOString()}\t${new Date(t + 900).toISOString()}\t${status}\t${ms}\t${esc(error)}\t{"status_code": 200}\n`;
    if (chunk.length > 1 << 20) {
      if (!stream.write(chunk)) await new Promise((r) => stream.once("drain", r));
      chunk = "";
    }
  }
  await new Promise<void>((resolve, reject) => stream.end(chunk, (err?: Error | null) => (err ? reject(err) : resolve())));
  return n;
}

const pct = (xs: number[], p: number) => xs[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!;

/** Child mode: an API server on the bench database, in its own process so autocannon does not share its CPU. */
if (process.argv[2] === "--serve") {
  const api = await startTestApi({}, { url: process.argv[3]!, sql: createSql(process.argv[3]!, { max: 10 }), drop: async () => {} });
  console.log(`URL ${api.url}`);
  process.on("SIGTERM", () => void api.server.stop(500).then(() => process.exit(0)));
} else {
  await main();
}

async function load(sql: Sql, orgId: string, monitorIds: string[], start: number, end: number) {
  for (let t = start - DAY_MS; t <= end + DAY_MS; t += DAY_MS) await ensurePartition(sql, new Date(t).toISOString().slice(0, 10));
  let t0 = performance.now();
  let rows = 0;
  for (let i = 0; i < monitorIds.length; i += 2) {
    const counts = await Promise.all(monitorIds.slice(i, i + 2).map((id, j) => copyMonitor(sql, orgId, id, start, end, i + j + 1)));
    rows += counts.reduce((a, b) => a + b, 0);
  }
  const loadS = (performance.now() - t0) / 1000;
  t0 = performance.now();
  for (let i = 0; i < monitorIds.length; i += 10) await rebuildRollups(sql, orgId, monitorIds.slice(i, i + 10), new Date(start), new Date(end));
  // Plain PostgreSQL: the rollups closed up to where the scheduler's closer keeps them (30 s to 90 s behind now).
  await closeRollups(sql, new Date(), { maxSteps: 1_000_000 });
  for (const table of ["check_results", "check_results_hourly", "check_results_daily"]) await sql.unsafe(`vacuum analyze ${table}`);
  console.log(`loaded ${rows.toLocaleString("en")} results (${COMPONENTS} monitors × ${DAYS} days) with COPY in ${loadS.toFixed(1)} s; rollups + analyze ${((performance.now() - t0) / 1000).toFixed(1)} s`);
}

async function cannon(url: string, headers: Record<string, string> = {}, seconds = SECONDS) {
  const r = await autocannon({ url, connections: 50, pipelining: 1, duration: seconds, headers });
  return { rps: r.requests.average, p99: r.latency.p99, p50: r.latency.p50, non2xx: r.non2xx, errors: r.errors, bytes: r.throughput.average };
}

async function main() {
  const db: TestDatabase = await createTestDatabase();
  let child: ReturnType<typeof Bun.spawn> | null = null;
  try {
    const sql = db.sql;
    const org = await makeOrg(sql, "unlimited");
    const monitorIds: string[] = [];
    for (let i = 0; i < COMPONENTS; i++) {
      const [row] = await sql<{ id: string }[]>`
        insert into monitors (id, org_id, name, type, config, interval_seconds, timeout_ms, status)
        values (${`mon_bench${i.toString().padStart(4, "0")}`}, ${org.org_id}, ${`Service ${i + 1}`}, 'http', ${sql.json({ url: "https://example.com" })}, 60, 30000, 'up')
        returning id`;
      monitorIds.push(row!.id);
    }
    const end = Math.floor(Date.now() / 60_000) * 60_000;
    await load(sql, org.org_id, monitorIds, end - DAYS * DAY_MS, end);

    // The server process; the page is created through its API.
    const proc = Bun.spawn(["bun", import.meta.path, "--serve", db.url], { stdout: "pipe", stderr: "inherit" });
    child = proc;
    const reader = proc.stdout.getReader();
    let out = "";
    while (!out.includes("\n")) out += new TextDecoder().decode((await reader.read()).value);
    const base = /URL (\S+)/.exec(out)![1]!;
    const call = client(base, { key: org.api_key });
    const slug = `bench-${Date.now().toString(36)}`;
    const page = await call("POST", "/api/v1/status-pages", { name: "Bench Status", slug });
    const sections = Array.from({ length: 5 }, (_, s) => ({
      name: `Region ${s + 1}`,
      components: monitorIds.slice(s * (COMPONENTS / 5), (s + 1) * (COMPONENTS / 5)).map((id, i) => ({ monitor_id: id, display_name: `Service ${s * (COMPONENTS / 5) + i + 1}` })),
    }));
    const layout = await call("PUT", `/api/v1/status-pages/${page.body.id}/layout`, { sections });
    if (layout.status !== 200) throw new Error(`layout ${layout.status} ${JSON.stringify(layout.body)}`);

    // 1. Uncached render, in this process, warm database.
    const row = (await findPageBySlug(sql, slug))!;
    const render = async () => renderStatusHtml(await buildPublicPage(sql, row), await themeOf(sql, row), `/status/${slug}`);
    for (let i = 0; i < 5; i++) await render();
    const times: number[] = [];
    let size = 0;
    for (let i = 0; i < 100; i++) {
      const t0 = performance.now();
      size = (await render()).length;
      times.push(performance.now() - t0);
    }
    times.sort((a, b) => a - b);
    const cold: number[] = [];
    for (let i = 0; i < 20; i++) {
      clearBarHistory();
      const t0 = performance.now();
      await render();
      cold.push(performance.now() - t0);
    }
    cold.sort((a, b) => a - b);
    const htmlOnly: number[] = [];
    const model = await buildPublicPage(sql, row);
    const theme = await themeOf(sql, row);
    for (let i = 0; i < 200; i++) {
      const t0 = performance.now();
      renderStatusHtml(model, theme, `/status/${slug}`);
      htmlOnly.push(performance.now() - t0);
    }
    htmlOnly.sort((a, b) => a - b);
    console.log(`uncached render (queries + HTML, ${(size / 1024).toFixed(0)} KiB): p50 ${pct(times, 50).toFixed(1)} ms, p99 ${pct(times, 99).toFixed(1)} ms (target p99 < 50 ms) ${pct(times, 99) < 50 ? "OK" : "SLOW"}`);
    console.log(`  … with the 89-day bar history not cached either (first render of the day): p50 ${pct(cold, 50).toFixed(1)} ms, p99 ${pct(cold, 99).toFixed(1)} ms`);
    console.log(`HTML templating alone (model in hand): p50 ${pct(htmlOnly, 50).toFixed(2)} ms, p99 ${pct(htmlOnly, 99).toFixed(2)} ms`);

    // Cached request latency, one at a time.
    const url = `${base}/status/${slug}`;
    const served: number[] = [];
    for (let i = 0; i < 200; i++) {
      const t0 = performance.now();
      await (await fetch(url)).arrayBuffer();
      served.push(performance.now() - t0);
    }
    served.sort((a, b) => a - b);
    console.log(`GET /status/<slug> one at a time (cached): p50 ${pct(served, 50).toFixed(2)} ms, p99 ${pct(served, 99).toFixed(2)} ms`);

    // 2. Throughput.
    for (const [label, target, headers] of [
      ["HTML, identity", url, {}],
      ["HTML, gzip", url, { "accept-encoding": "gzip" }],
      ["JSON, gzip", `${url}/index.json`, { "accept-encoding": "gzip" }],
    ] as const) {
      const r = await cannon(target, headers);
      console.log(`autocannon ${label.padEnd(15)} ${Math.round(r.rps).toLocaleString("en").padStart(7)} req/s  p50 ${r.p50} ms  p99 ${r.p99} ms  non-2xx ${r.non2xx}  errors ${r.errors}  ${(r.bytes / 1e6).toFixed(0)} MB/s (target ≥ 1,000/s) ${r.rps >= 1000 && r.non2xx === 0 ? "OK" : "LOW"}`);
    }

    // 3. Correctness under load: flip a monitor while autocannon runs and time until the page shows it.
    const running = cannon(url, { "accept-encoding": "gzip" }, 6);
    await Bun.sleep(2000);
    const flips: number[] = [];
    for (const status of ["down", "up", "down", "up"]) {
      const t0 = performance.now();
      await sql`update monitors set status = ${status} where id = ${monitorIds[7]!}`;
      const want = status === "down" ? "major_outage" : "operational";
      for (;;) {
        const j = (await (await fetch(`${url}/index.json`)).json()) as { sections: { components: { status: string }[] }[] };
        if (j.sections.flatMap((x) => x.components)[7]!.status === want) break;
        if (performance.now() - t0 > 5000) throw new Error(`page still not ${want} after 5 s`);
      }
      flips.push(performance.now() - t0);
    }
    const during = await running;
    console.log(`status flips under load (${Math.round(during.rps).toLocaleString("en")} req/s): the page showed each of 4 changes after ${flips.map((f) => f.toFixed(1)).join(", ")} ms`);
  } finally {
    child?.kill("SIGTERM");
    await child?.exited;
    if (process.env.BENCH_KEEP_DB) console.log(`kept ${db.url}`);
    else await db.drop();
  }
}
