import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { readFileSync } from "node:fs";
import parsePrometheusTextFormat from "parse-prometheus-text-format";
import { newId } from "../../core/ids.ts";
import { storeResults } from "../../domain/results/ingest.ts";
import { makeResult } from "../../domain/results/test-fixtures.ts";
import { client, makeOrg, signUp, startTestApi, type TestApi } from "../support/api.ts";

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi({ ALLOW_PRIVATE_IPS: "true" });
});
afterAll(() => api.stop());

async function scrape(headers: Record<string, string>) {
  const res = await fetch(`${api.url}/api/v1/metrics`, { headers });
  const text = await res.text();
  return { status: res.status, contentType: res.headers.get("content-type"), text };
}

interface Sample {
  labels: Record<string, string>;
  value?: number;
  quantiles?: Record<string, number>;
  sum?: number;
  count?: number;
}
type PromMetrics = Record<string, { type: string; data: Sample[] }>;

/**
 * The scrape as parse-prometheus-text-format reads it (label unescaping ported from the Prometheus
 * Python client; a badly escaped line throws). That parser folds every series of a labelled summary
 * into one unlabelled sample, so summaries are read as untyped samples and put back together here.
 */
function parseScrape(text: string): PromMetrics {
  const summaries = new Set([...text.matchAll(/^# TYPE (\S+) summary$/gm)].map((m) => m[1]!));
  const untyped = text.replace(/^# TYPE (\S+) summary$/gm, "# TYPE $1 untyped");
  const out: PromMetrics = {};
  const plain = new Map<string, Sample[]>();
  for (const f of parsePrometheusTextFormat(untyped)) {
    // Read as untyped, a summary's name recurs after each series' _sum and _count lines.
    const data = [...(plain.get(f.name) ?? []), ...f.metrics.map((m) => ({ labels: m.labels ?? {}, value: Number(m.value) }))];
    plain.set(f.name, data);
    out[f.name] = { type: f.type.toLowerCase(), data };
  }
  for (const name of summaries) {
    const key = (l: Record<string, string>) => JSON.stringify(Object.entries(l).filter(([k]) => k !== "quantile").sort());
    const series = new Map<string, Sample>();
    for (const q of plain.get(name) ?? []) {
      const { quantile, ...labels } = q.labels;
      const s = series.get(key(labels)) ?? { labels, quantiles: {} };
      s.quantiles![quantile!] = q.value!;
      series.set(key(labels), s);
    }
    for (const [suffix, field] of [["_sum", "sum"], ["_count", "count"]] as const) {
      for (const m of plain.get(name + suffix) ?? []) {
        const s = series.get(key(m.labels)) ?? { labels: m.labels, quantiles: {} };
        s[field] = m.value;
        series.set(key(m.labels), s);
      }
      delete out[name + suffix];
    }
    out[name] = { type: "summary", data: [...series.values()] };
  }
  return out;
}

async function scrapeWithKey(key: string): Promise<PromMetrics> {
  const res = await scrape({ authorization: `Bearer ${key}` });
  expect(res.status).toBe(200);
  expect(res.contentType).toBe("text/plain; version=0.0.4; charset=utf-8");
  return parseScrape(res.text);
}

/** The samples of one family whose labels include `match`. */
function samples(families: PromMetrics, name: string, match: Record<string, string> = {}): Sample[] {
  return (families[name]?.data ?? []).filter((m) => Object.entries(match).every(([k, v]) => m.labels[k] === v));
}

function value(families: PromMetrics, name: string, match: Record<string, string>): number | undefined {
  const found = samples(families, name, match);
  expect(found.length).toBeLessThanOrEqual(1);
  return found[0]?.value;
}

const allSamples = (families: PromMetrics): Sample[] => Object.values(families).flatMap((f) => f.data);

async function createMonitor(call: ReturnType<typeof client>, body: Record<string, unknown>): Promise<string> {
  const res = await call("POST", "/api/v1/monitors", { interval_seconds: 60, ...body });
  expect({ status: res.status, body: res.status === 201 ? "ok" : res.body }).toEqual({ status: 201, body: "ok" });
  return res.body.id as string;
}

async function fireAlert(orgId: string, monitorId: string, region: string): Promise<void> {
  const ruleId = newId("rule");
  await api.sql`
    insert into alert_rules (id, org_id, name, scope, condition, confirmation, notifications)
    values (${ruleId}, ${orgId}, ${"down"}, ${api.sql.json({ type: "monitor", monitor_ids: [monitorId] })}, ${api.sql.json({ type: "status_change", to: ["down"] })},
      ${api.sql.json({ consecutive: 1 })}, ${api.sql.json({})})`;
  await api.sql`
    insert into alert_states (org_id, rule_id, monitor_id, region, firing, consecutive, incarnation, fired_at, state)
    values (${orgId}, ${ruleId}, ${monitorId}, ${region}, true, 1, 1, now(), ${api.sql.json({ phase: "firing" })})`;
}

/** An organisation with an http monitor in two regions, an ssl and a domain monitor, one firing alert and one stale monitor. */
async function populatedOrg() {
  const o = await makeOrg(api.sql, "business");
  const call = client(api.url, { key: o.api_key });
  const web = await createMonitor(call, { name: "Shop API", type: "http", config: { url: "http://127.0.0.1:9/" }, tags: ["prod", "api"] });
  const cert = await createMonitor(call, { name: "Shop certificate", type: "ssl", config: { host: "example.com" } });
  const domain = await createMonitor(call, { name: "Shop domain", type: "domain", config: { domain: "example.com" }, interval_seconds: 3600 });
  const stale = await createMonitor(call, { name: "Stale", type: "http", config: { url: "http://127.0.0.1:9/" } });
  const now = Date.now();
  await storeResults(api.sql, [
    makeResult(o.org_id, web, new Date(now - 5 * 60_000), "up", { location: "eu-west", duration_ms: 100 }),
    makeResult(o.org_id, web, new Date(now - 2 * 60_000), "down", { location: "eu-west", duration_ms: 300 }),
    makeResult(o.org_id, web, new Date(now - 60_000), "unavailable", { location: "eu-west", duration_ms: 0 }),
    makeResult(o.org_id, web, new Date(now - 60_000), "degraded", { location: "us-east", duration_ms: 200 }),
    makeResult(o.org_id, cert, new Date(now - 60_000), "up", { location: "eu-west", data: { ssl_days_remaining: 42 } }),
    makeResult(o.org_id, domain, new Date(now - 60_000), "up", { location: "eu-west", data: { domain_days_remaining: 300 } }),
    makeResult(o.org_id, stale, new Date(now - 3 * 3600_000), "up", { location: "eu-west" }),
  ]);
  await fireAlert(o.org_id, web, "eu-west");
  return { ...o, call, web, cert, domain, stale, now };
}

describe("GET /api/v1/metrics", () => {
  let org: Awaited<ReturnType<typeof populatedOrg>>;
  let families: PromMetrics;
  beforeAll(async () => {
    org = await populatedOrg();
    families = await scrapeWithKey(org.api_key);
  });

  it("reports the newest status per monitor and region, with the monitor's labels", () => {
    const eu = { monitor_id: org.web, region: "eu-west" };
    expect(samples(families, "watchpost_monitor_up", eu)[0]?.labels).toEqual({ monitor_id: org.web, name: "Shop API", type: "http", region: "eu-west", group: "api", tags: "api,prod" });
    // The newest eu-west check that ran was down (the later 'unavailable' one did not run).
    expect(value(families, "watchpost_monitor_up", eu)).toBe(0);
    expect(value(families, "watchpost_monitor_up", { monitor_id: org.web, region: "us-east" })).toBe(1);
    const last = value(families, "watchpost_monitor_last_check_timestamp_seconds", eu)!;
    expect(Math.abs(last - (org.now - 2 * 60_000 + 1000) / 1000)).toBeLessThan(1);
  });

  it("counts the window's checks by status and summarises their response time", () => {
    const eu = { monitor_id: org.web, region: "eu-west" };
    const counts = Object.fromEntries(samples(families, "watchpost_monitor_checks", eu).map((m) => [m.labels.status, m.value]));
    expect(counts).toEqual({ up: 1, down: 1, degraded: 0, timeout: 0, unavailable: 1 });
    expect(families.watchpost_monitor_response_time_seconds?.type).toBe("summary");
    const [summary] = samples(families, "watchpost_monitor_response_time_seconds", eu);
    expect(summary!.count).toBe(2);
    expect(summary!.sum!).toBeCloseTo(0.4, 6);
    // The top quantile is the observed maximum; the median lies in the 100 ms histogram bucket [100, 125).
    expect(summary!.quantiles!["0.99"]!).toBeCloseTo(0.3, 6);
    const median = summary!.quantiles!["0.5"]!;
    expect(median).toBeGreaterThanOrEqual(0.1);
    expect(median).toBeLessThan(0.125);
  });

  it("gives certificate and domain days left from the newest ssl and domain checks", () => {
    expect(value(families, "watchpost_monitor_certificate_days_left", { monitor_id: org.cert, type: "ssl" })).toBe(42);
    expect(value(families, "watchpost_monitor_domain_days_left", { monitor_id: org.domain, type: "domain" })).toBe(300);
    expect(samples(families, "watchpost_monitor_certificate_days_left", { monitor_id: org.web })).toHaveLength(0);
  });

  it("counts firing alerts per monitor and region", () => {
    expect(value(families, "watchpost_monitor_alerts_firing", { monitor_id: org.web, region: "eu-west" })).toBe(1);
    expect(value(families, "watchpost_monitor_alerts_firing", { monitor_id: org.web, region: "us-east" })).toBe(0);
  });

  it("leaves out a monitor with no check in two intervals plus two minutes and none in the window", () => {
    expect(allSamples(families).filter((m) => m.labels.monitor_id === org.stale)).toEqual([]);
  });

  it("compresses the scrape with gzip when the scraper accepts it, as Prometheus does", async () => {
    const url = `${api.url}/api/v1/metrics`;
    const auth = { authorization: `Bearer ${org.api_key}` };
    const zipped = await fetch(url, { headers: { ...auth, "accept-encoding": "gzip" }, decompress: false });
    expect(zipped.headers.get("content-encoding")).toBe("gzip");
    const text = new TextDecoder().decode(Bun.gunzipSync(new Uint8Array(await zipped.arrayBuffer())));
    const plain = await fetch(url, { headers: { ...auth, "accept-encoding": "identity" } });
    expect(plain.headers.get("content-encoding")).toBeNull();
    const samplesOf = (t: string) => t.split("\n").filter((l) => l && !l.startsWith("#")).map((l) => l.slice(0, l.lastIndexOf(" ")));
    expect(samplesOf(text)).toEqual(samplesOf(await plain.text()));
  });

  it("lists the same series in the same order on every scrape", async () => {
    const again = await scrape({ authorization: `Bearer ${org.api_key}` });
    const first = await scrape({ authorization: `Bearer ${org.api_key}` });
    const series = (t: string) => t.split("\n").filter((l) => l && !l.startsWith("#")).map((l) => l.slice(0, l.lastIndexOf(" ")));
    expect(series(again.text)).toEqual(series(first.text));
  });

  it("queries only metrics that a scrape holds in the Grafana dashboard", () => {
    const dashboard = JSON.parse(readFileSync(new URL("../../infra/grafana/watchpost-dashboard.json", import.meta.url), "utf8"));
    expect(dashboard.title).toBeString();
    expect(dashboard.uid).toBeString();
    expect(dashboard.schemaVersion).toBeNumber();
    const exprs: string[] = [
      ...dashboard.panels.flatMap((p: { targets?: { expr: string }[] }) => (p.targets ?? []).map((t) => t.expr)),
      ...dashboard.templating.list.map((v: { query?: string | { query: string } }) => (typeof v.query === "string" ? v.query : v.query?.query ?? "")),
    ];
    const names = new Set(exprs.flatMap((e) => e.match(/watchpost_[a-z_]+/g) ?? []));
    expect(dashboard.panels.length).toBeGreaterThanOrEqual(6);
    expect(names.size).toBeGreaterThanOrEqual(6);
    const scraped = new Set(Object.entries(families).flatMap(([name, f]) => (f.type === "summary" ? [name, `${name}_sum`, `${name}_count`] : [name])));
    expect([...names].filter((n) => !scraped.has(n))).toEqual([]);
  });
});

describe("GET /api/v1/metrics access", () => {
  it("answers 401 with the error body without credentials", async () => {
    const res = await scrape({});
    expect(res.status).toBe(401);
    expect(JSON.parse(res.text)).toMatchObject({ code: "UNAUTHENTICATED", error: expect.any(String) });
  });

  it("answers 403 to a key without monitors:read", async () => {
    const o = await makeOrg(api.sql, "business");
    const call = client(api.url, { key: o.api_key });
    const created = await call("POST", "/api/v1/api-keys", { name: "alerts only", scopes: ["alerts:read"] });
    expect(created.status).toBe(201);
    const res = await scrape({ authorization: `Bearer ${created.body.key}` });
    expect(res.status).toBe(403);
    expect(JSON.parse(res.text)).toMatchObject({ code: "PERMISSION_DENIED", details: { permission: "monitors:read" } });
  });

  it("serves a key holding only monitors:read and a signed-in member's session", async () => {
    const o = await makeOrg(api.sql, "business");
    const call = client(api.url, { key: o.api_key });
    const created = await call("POST", "/api/v1/api-keys", { name: "prometheus", scopes: ["monitors:read"] });
    expect((await scrape({ authorization: `Bearer ${created.body.key}` })).status).toBe(200);
    const user = await signUp(api.url);
    const viaSession = await scrape({ cookie: user.cookie });
    expect(viaSession.status).toBe(200);
    expect(Object.keys(parseScrape(viaSession.text))).toContain("watchpost_monitor_up");
  });

  it("never shows another organisation's monitors", async () => {
    const a = await makeOrg(api.sql, "business");
    const b = await makeOrg(api.sql, "business");
    const aMon = await createMonitor(client(api.url, { key: a.api_key }), { name: "A only", type: "http", config: { url: "http://127.0.0.1:9/" } });
    const bMon = await createMonitor(client(api.url, { key: b.api_key }), { name: "B only", type: "http", config: { url: "http://127.0.0.1:9/" } });
    await storeResults(api.sql, [makeResult(a.org_id, aMon, new Date(Date.now() - 60_000), "up"), makeResult(b.org_id, bMon, new Date(Date.now() - 60_000), "down")]);
    await fireAlert(b.org_id, bMon, "eu");
    const ids = (fs: PromMetrics) => [...new Set(allSamples(fs).map((m) => m.labels.monitor_id))];
    expect(ids(await scrapeWithKey(a.api_key))).toEqual([aMon]);
    expect(ids(await scrapeWithKey(b.api_key))).toEqual([bMon]);
  });
});

describe("GET /api/v1/metrics label escaping", () => {
  it("keeps hostile monitor names and tags intact through a Prometheus parser", async () => {
    const o = await makeOrg(api.sql, "business");
    const call = client(api.url, { key: o.api_key });
    const hostile = 'evil" } \\ {x="1",y=2} # TYPE up counter ✓ Ünïcode';
    const id = await createMonitor(call, { name: hostile, type: "http", config: { url: "http://127.0.0.1:9/" }, tags: ['q"uote', "back\\slash", "{brace}"] });
    // A line feed cannot come through the API (names are visible text) but may sit in older rows.
    const legacy = await createMonitor(call, { name: "legacy", type: "http", config: { url: "http://127.0.0.1:9/" } });
    await api.sql`update monitors set name = ${'two\nlines\\n "end"'} where id = ${legacy}`;
    await storeResults(api.sql, [makeResult(o.org_id, id, new Date(Date.now() - 60_000), "up"), makeResult(o.org_id, legacy, new Date(Date.now() - 60_000), "up")]);
    const families = await scrapeWithKey(o.api_key);
    expect(samples(families, "watchpost_monitor_up", { monitor_id: id })[0]?.labels).toMatchObject({ name: hostile, group: "back\\slash", tags: 'back\\slash,q"uote,{brace}' });
    expect(samples(families, "watchpost_monitor_up", { monitor_id: legacy })[0]?.labels.name).toBe('two\nlines\\n "end"');
    expect(samples(families, "watchpost_monitor_up")).toHaveLength(2);
  });
});
