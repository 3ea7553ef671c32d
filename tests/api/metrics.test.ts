import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { readFileSync } from "node:fs";
import parsePrometheusTextFormat from "parse-prometheus-text-format";
import { newId } from "../../core/ids.ts";
import { storeResults } from "../../domain/results/ingest.ts";
import { makeResult } from "../../domain/results/test-fixtures.ts";
import { client, makeOrg, signUp, startTestApi, type TestApi } from "../support/api.ts";
import { fallenCounters, readExposition } from "../support/prometheus-exposition.ts";

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
}
type PromMetrics = Record<string, { type: string; data: Sample[] }>;

/**
 * The scrape as parse-prometheus-text-format reads it (label unescaping ported from the Prometheus
 * Python client; a badly escaped line throws). That parser folds every series of a labelled histogram
 * into one unlabelled sample, so histograms are read as untyped samples: `<name>_bucket`, `_sum`, `_count`.
 */
function parseScrape(text: string): PromMetrics {
  const untyped = text.replace(/^# TYPE (\S+) histogram$/gm, "# TYPE $1 untyped");
  const out: PromMetrics = {};
  for (const f of parsePrometheusTextFormat(untyped)) {
    // Read as untyped, a histogram's _bucket name recurs after each series' _sum and _count lines.
    const data = [...(out[f.name]?.data ?? []), ...f.metrics.map((m) => ({ labels: m.labels ?? {}, value: Number(m.value) }))];
    out[f.name] = { type: f.type.toLowerCase(), data };
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

/**
 * An organisation with an http monitor in two regions, an ssl and a domain monitor, a heartbeat monitor, one firing
 * alert, one stale monitor and a maintenance window pausing the ssl monitor. The counters start at each UTC hour, so
 * results are placed between the hour's start and now (in order), and one before the hour.
 */
async function populatedOrg() {
  // The counters restart at each UTC hour: start a few seconds into one, with time to scrape before it ends.
  const intoHour = Date.now() % 3600_000;
  if (intoHour < 5_000 || intoHour > 3600_000 - 40_000) await Bun.sleep((3600_000 - intoHour + 5_000) % 3600_000);
  const o = await makeOrg(api.sql, "business");
  const call = client(api.url, { key: o.api_key });
  const web = await createMonitor(call, { name: "Shop API", type: "http", config: { url: "http://127.0.0.1:9/" }, tags: ["prod", "api"] });
  const cert = await createMonitor(call, { name: "Shop certificate", type: "ssl", config: { host: "example.com" } });
  const domain = await createMonitor(call, { name: "Shop domain", type: "domain", config: { domain: "example.com" }, interval_seconds: 3600 });
  const stale = await createMonitor(call, { name: "Stale", type: "http", config: { url: "http://127.0.0.1:9/" } });
  const cron = await createMonitor(call, { name: "Nightly backup", type: "heartbeat", config: { period_seconds: 60 } });
  const now = Date.now();
  const hour = Math.floor(now / 3600_000) * 3600_000;
  // The k-th of 8 instants between the hour's start (or 3 minutes ago, for the newest check to be recent) and now.
  const from = Math.max(hour, now - 3 * 60_000);
  const at = (k: number) => new Date(from + Math.floor(((now - 1000 - from) * k) / 8));
  await storeResults(api.sql, [
    makeResult(o.org_id, web, new Date(hour - 30_000), "up", { location: "eu-west", duration_ms: 50 }),
    makeResult(o.org_id, web, at(1), "up", { location: "eu-west", duration_ms: 100 }),
    makeResult(o.org_id, web, at(2), "down", { location: "eu-west", duration_ms: 300 }),
    makeResult(o.org_id, web, at(3), "unavailable", { location: "eu-west", duration_ms: 0 }),
    makeResult(o.org_id, web, at(3), "degraded", { location: "us-east", duration_ms: 200 }),
    makeResult(o.org_id, cert, at(4), "up", { location: "eu-west", data: { ssl_days_remaining: 42, valid_to: "2027-01-10T12:00:00.000Z" } }),
    makeResult(o.org_id, domain, at(4), "up", { location: "eu-west", data: { domain_days_remaining: 300, expiry_date: "2027-09-25T00:00:00.000Z" } }),
    makeResult(o.org_id, cron, at(5), "up", { location: "heartbeat", duration_ms: 0, data: { signal: "success" } }),
    makeResult(o.org_id, stale, new Date(now - 3 * 3600_000), "up", { location: "eu-west" }),
  ]);
  await fireAlert(o.org_id, web, "eu-west");
  const inMinutes = (m: number) => new Date(now + m * 60_000).toISOString();
  const window = await call("POST", "/api/v1/maintenance-windows", { name: "Renewal", starts_at: inMinutes(-5), ends_at: inMinutes(55), monitor_ids: [cert], pause_monitors: true });
  expect(window.status).toBe(201);
  return { ...o, call, web, cert, domain, stale, cron, now, hour, at };
}

/** The cumulative buckets of one series of a histogram, by `le`. */
function buckets(families: PromMetrics, name: string, match: Record<string, string>): Record<string, number | undefined> {
  return Object.fromEntries(samples(families, `${name}_bucket`, match).map((m) => [m.labels.le, m.value]));
}

describe("GET /api/v1/metrics", () => {
  let org: Awaited<ReturnType<typeof populatedOrg>>;
  let families: PromMetrics;
  beforeAll(async () => {
    org = await populatedOrg();
    families = await scrapeWithKey(org.api_key);
  }, 120_000);

  it("reports the newest status per monitor and region, with the monitor's labels", () => {
    const eu = { monitor_id: org.web, region: "eu-west" };
    expect(samples(families, "watchpost_monitor_up", eu)[0]?.labels).toEqual({ monitor_id: org.web, name: "Shop API", type: "http", region: "eu-west", group: "api", tags: "api,prod" });
    // The newest eu-west check that ran was down (the later 'unavailable' one did not run).
    expect(value(families, "watchpost_monitor_up", eu)).toBe(0);
    expect(value(families, "watchpost_monitor_up", { monitor_id: org.web, region: "us-east" })).toBe(1);
    const last = value(families, "watchpost_monitor_last_check_timestamp_seconds", eu)!;
    expect(Math.abs(last - (org.at(2).getTime() + 1000) / 1000)).toBeLessThan(0.01);
  });

  it("counts the checks since the start of the UTC hour by status, as counters", () => {
    const eu = { monitor_id: org.web, region: "eu-west" };
    expect(families.watchpost_monitor_checks_total?.type).toBe("counter");
    const counts = Object.fromEntries(samples(families, "watchpost_monitor_checks_total", eu).map((m) => [m.labels.status, m.value]));
    // The check before the hour began is not counted: the counters restart at each UTC hour.
    expect(counts).toEqual({ up: 1, down: 1, degraded: 0, timeout: 0, unavailable: 1 });
  });

  it("gives response time as a Prometheus histogram of the hour's checks that ran", () => {
    const eu = { monitor_id: org.web, region: "eu-west" };
    const name = "watchpost_monitor_response_time_seconds";
    expect(samples(families, `${name}_count`, eu)[0]?.value).toBe(2);
    expect(samples(families, `${name}_sum`, eu)[0]?.value).toBeCloseTo(0.4, 6);
    const b = buckets(families, name, eu);
    expect(b).toMatchObject({ "0.05": 0, "0.1": 0, "0.25": 1, "0.5": 2, "+Inf": 2 });
    expect(Object.keys(b).at(-1)).toBe("+Inf");
    // Every type that runs a check has a response time, ssl included.
    expect(samples(families, `${name}_count`, { monitor_id: org.cert })[0]?.value).toBe(1);
  });

  it("leaves heartbeat monitors out of response time: a ping has none", () => {
    expect(value(families, "watchpost_monitor_up", { monitor_id: org.cron, region: "heartbeat" })).toBe(1);
    expect(samples(families, "watchpost_monitor_checks_total", { monitor_id: org.cron, status: "up" })[0]?.value).toBe(1);
    const rt = Object.keys(families).filter((n) => n.startsWith("watchpost_monitor_response_time_seconds"));
    expect(rt.length).toBeGreaterThan(0);
    expect(rt.flatMap((n) => samples(families, n, { monitor_id: org.cron }))).toEqual([]);
  });

  it("gives certificate and domain expiry as Unix timestamps from the newest ssl and domain checks", () => {
    expect(value(families, "watchpost_monitor_certificate_expiry_timestamp_seconds", { monitor_id: org.cert })).toBe(Date.parse("2027-01-10T12:00:00Z") / 1000);
    expect(value(families, "watchpost_monitor_domain_expiry_timestamp_seconds", { monitor_id: org.domain })).toBe(Date.parse("2027-09-25T00:00:00Z") / 1000);
    expect(samples(families, "watchpost_monitor_certificate_expiry_timestamp_seconds", { monitor_id: org.web })).toHaveLength(0);
    expect(samples(families, "watchpost_monitor_domain_expiry_timestamp_seconds", { monitor_id: org.cert })).toHaveLength(0);
  });

  it("marks the series of a monitor inside a maintenance window, and whether the window pauses its checks", () => {
    expect(value(families, "watchpost_monitor_maintenance", { monitor_id: org.cert })).toBe(1);
    expect(value(families, "watchpost_monitor_maintenance_paused", { monitor_id: org.cert })).toBe(1);
    expect(value(families, "watchpost_monitor_maintenance", { monitor_id: org.web, region: "eu-west" })).toBe(0);
    expect(value(families, "watchpost_monitor_maintenance_paused", { monitor_id: org.domain })).toBe(0);
  });

  it("follows the text format's rules over the whole scrape, and its counters only grow between two scrapes", async () => {
    const first = readExposition((await scrape({ authorization: `Bearer ${org.api_key}` })).text);
    expect(first.types.get("watchpost_monitor_response_time_seconds")).toBe("histogram");
    await storeResults(api.sql, [makeResult(org.org_id, org.web, new Date(Date.now() - 500), "timeout", { location: "eu-west", duration_ms: 30_000 })]);
    const second = readExposition((await scrape({ authorization: `Bearer ${org.api_key}` })).text);
    // Both scrapes within one UTC hour (a new hour restarts the counters, which Prometheus reads as a reset).
    if (Math.floor(Date.now() / 3600_000) * 3600_000 === org.hour) expect(fallenCounters(first, second)).toEqual([]);
    const key = (n: string) => [...second.samples.keys()].find((k) => k.startsWith(`${n}{`) && k.includes(org.web) && k.includes("eu-west"));
    expect(second.samples.get(key("watchpost_monitor_response_time_seconds_count")!)).toBe(first.samples.get(key("watchpost_monitor_response_time_seconds_count")!)! + 1);
  });

  it("still gives certificate and domain days left (deprecated) from the newest ssl and domain checks", () => {
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
    const scraped = new Set(Object.keys(families));
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
