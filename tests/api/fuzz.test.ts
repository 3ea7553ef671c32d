/**
 * Fuzzing every operation of our own OpenAPI document, with what Schemathesis checks: thousands of
 * generated requests (valid, boundary, wrong-typed, malformed, oversized; real ids of the caller's
 * organisation and of another one; missing, wrong and foreign credentials), plus positive requests
 * (exactly what the document allows) and negative ones (one rule broken). Every answer must be below
 * 500, carry a status and content type the document declares for the operation, a JSON body matching
 * the declared schema and, when it is an error, the spec's error body; positive requests are never
 * refused as invalid, negative ones always are; methods the document does not list answer 405; and
 * nothing of the other organisation may change. FUZZ_RUNS sets the random requests per operation,
 * FUZZ_CASES the positive and negative ones, FUZZ_SEED the seed (fixed, so a run is repeatable).
 */
import { afterAll, beforeAll, expect, it } from "bun:test";
import fc from "fast-check";
import type { Sql } from "../../db/client.ts";
import { makeOrg, startTestApi, type TestApi } from "../support/api.ts";
import { type Endpoint, endpoints, type FuzzRequest, HTTP_METHODS, type OpenApiDocument, requestArbitrary, toFetch } from "../support/openapi-fuzz.ts";
import { fillPath, populateOrg, type Populated } from "../support/populate.ts";
import { invalidRequestArbitrary, validRequestArbitrary } from "../support/openapi-cases.ts";
import { responseChecker } from "../support/openapi-responses.ts";

const RUNS = Number(process.env.FUZZ_RUNS ?? 24);
const CASES = Number(process.env.FUZZ_CASES ?? 4);
const SEED = Number(process.env.FUZZ_SEED ?? 20261126);
const MAX_BODY_BYTES = 64 * 1024;
const ERROR_KEYS = new Set(["error", "code", "details"]);
/** Operations that reach out to the target of a resource: never aimed at the caller's real resources. */
const REACHES_OUT = /\/(run|test|verify)$/;

let api: TestApi;
let doc: OpenApiDocument;
let victim: { orgId: string; data: Populated };
let checkResponse: ReturnType<typeof responseChecker>;
let ownKey: string;

beforeAll(async () => {
  api = await startTestApi({
    MAX_BODY_BYTES: String(MAX_BODY_BYTES),
    // Nothing generated may leave loopback: no provider, no DNS server but a closed loopback port.
    PADDLE_API_URL: "http://127.0.0.1:9",
    STATUS_PAGE_DNS_SERVERS: "127.0.0.1:9",
    PUBLIC_BASE_URL: "http://127.0.0.1:9",
  });
  doc = (await (await fetch(`${api.url}/openapi.json`)).json()) as OpenApiDocument;
  checkResponse = responseChecker(doc);
  const org = await makeOrg(api.sql, "business");
  ownKey = (await makeOrg(api.sql, "business")).api_key;
  victim = { orgId: org.org_id, data: await populateOrg(api, org, "victim") };
}, 60_000);
afterAll(() => api.stop());

/** A fingerprint of every row of one organisation, table by table. */
async function snapshot(sql: Sql, orgId: string): Promise<Record<string, string>> {
  const tables = await sql<{ table_name: string }[]>`
    select c.table_name from information_schema.columns c join information_schema.tables t using (table_schema, table_name)
    where c.table_schema = 'public' and c.column_name = 'org_id' and t.table_type = 'BASE TABLE' order by 1`;
  const out: Record<string, string> = {};
  for (const { table_name } of tables) {
    const [row] = await sql.unsafe(`select count(*)::int as n, md5(coalesce(string_agg(t::text, '|' order by t::text), '')) as h from "${table_name}" t where org_id = $1`, [orgId]);
    out[table_name] = `${row!.n}:${row!.h}`;
  }
  const [users] = await sql`select md5(string_agg(u::text, '|' order by u.id)) as h from users u join memberships m on m.user_id = u.id where m.org_id = ${orgId}`;
  out.users = String(users!.h);
  return out;
}

interface Failure {
  op: string;
  why: string;
  request: string;
  status: number;
  body: string;
}

async function send(r: FuzzRequest, e: Endpoint): Promise<{ status: number; contentType: string; text: string; streamed?: boolean }> {
  const [url, init] = toFetch(api.url, r, MAX_BODY_BYTES);
  const res = await fetch(url, { ...init, signal: AbortSignal.timeout(20_000) });
  const contentType = res.headers.get("content-type") ?? "";
  // Streams (live events, exports) are judged by their status and first bytes.
  if (res.ok && (contentType.includes("text/event-stream") || e.path.endsWith("/export"))) {
    const reader = res.body?.getReader();
    const first = await reader?.read();
    await reader?.cancel().catch(() => {});
    return { status: res.status, contentType, text: first?.value ? new TextDecoder().decode(first.value).slice(0, 200) : "", streamed: true };
  }
  return { status: res.status, contentType, text: await res.text() };
}

/** Whether the URL still names the operation's path once dot segments are resolved (a generated `..` leads elsewhere). */
function staysOnPath(e: Endpoint, r: FuzzRequest): boolean {
  const resolved = new URL(toFetch(api.url, r, MAX_BODY_BYTES)[0]).pathname;
  return new RegExp(`^${e.path.replace(/\{[^}]+\}/g, "[^/]+")}$`).test(resolved);
}

function judge(e: Endpoint, r: FuzzRequest, res: { status: number; contentType: string; text: string; streamed?: boolean }): string | null {
  if (res.status >= 500) return `status ${res.status}`;
  // A generated path value such as `..` or `a/b` reaches another route (or none): only "never a 5xx" applies.
  if (!staysOnPath(e, r)) return null;
  const broken = checkResponse(`${e.method} ${e.path}`, e.op, res);
  if (broken) return broken;
  if (res.status >= 400 && res.contentType.includes("json")) {
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(res.text);
    } catch {
      return "error body is not JSON";
    }
    const codes = (doc.components.schemas.Error!.properties.code.enum as string[]) ?? [];
    if (typeof body.error !== "string" || !body.error) return "error body without an error message";
    if (typeof body.code !== "string" || !codes.includes(body.code)) return `error code ${String(body.code)} is not one of the spec's`;
    if ("details" in body && (typeof body.details !== "object" || body.details === null || Array.isArray(body.details))) return "details is not an object";
    const extra = Object.keys(body).filter((k) => !ERROR_KEYS.has(k));
    if (extra.length) return `error body has extra fields ${extra.join(", ")}`;
  }
  if ((r.bodyKind === "oversized" || r.bodyKind === "oversized-chunked") && res.status !== 413 && res.status !== 401 && res.status !== 404 && res.status !== 429) return `oversized body answered ${res.status}, not 413`;
  return null;
}

it(
  "answers thousands of generated requests to every operation below 500, with declared statuses and the error body, and never touches another organisation",
  async () => {
    const before = await snapshot(api.sql, victim.orgId);
    const all = endpoints(doc);
    const byTag = new Map<string, Endpoint[]>();
    for (const e of all) byTag.set(e.op.tags?.[0] ?? "none", [...(byTag.get(e.op.tags?.[0] ?? "none") ?? []), e]);

    const counts = { requests: 0, operations: 0, byClass: {} as Record<string, number>, byBody: {} as Record<string, number>, byKind: {} as Record<string, number>, refusedOversized: 0 };
    const failures: Failure[] = [];
    let seed = SEED;
    for (const [tag, group] of byTag) {
      // Each group has an organisation of its own, with one of everything: a destructive request stays in it.
      const org = await makeOrg(api.sql, "business");
      const own = await populateOrg(api, org, tag.replace(/[^a-z]/g, "").slice(0, 10) || "t");
      // Reads first, deletes last, so a deleted resource does not hide the other operations' code paths.
      const order = ["GET", "POST", "PUT", "PATCH", "DELETE"];
      for (const e of [...group].sort((a, b) => order.indexOf(a.method) - order.indexOf(b.method))) {
        counts.operations++;
        const arb = requestArbitrary(doc, e, { ids: { own: own.all, foreign: victim.data.all }, ownIds: !REACHES_OUT.test(e.path), auth: { key: org.api_key } });
        const requests: { r: FuzzRequest; kind: "random" | "valid" | "invalid"; what?: string }[] = fc.sample(arb, { numRuns: RUNS, seed: seed++ }).map((r) => ({ r, kind: "random" as const }));
        const ownPath = REACHES_OUT.test(e.path) ? null : fillPath(e.path, own);
        if (ownPath) {
          const valid = validRequestArbitrary(doc, e, ownPath, org.api_key);
          requests.push(...fc.sample(valid, { numRuns: CASES, seed: seed++ }).map((r) => ({ r, kind: "valid" as const })));
          for (const bad of fc.sample(invalidRequestArbitrary(doc, e, valid), { numRuns: CASES, seed: seed++ })) if (bad) requests.push({ r: bad.r, kind: "invalid", what: bad.what });
        }
        for (let i = 0; i < requests.length; i += 8) {
          await Promise.all(
            requests.slice(i, i + 8).map(async ({ r, kind, what }) => {
              counts.requests++;
              counts.byBody[r.bodyKind ?? "none"] = (counts.byBody[r.bodyKind ?? "none"] ?? 0) + 1;
              let res: Awaited<ReturnType<typeof send>>;
              try {
                res = await send(r, e);
              } catch (err) {
                failures.push({ op: `${e.method} ${e.path}`, why: `no answer: ${(err as Error).message}`, request: describe(r), status: 0, body: "" });
                return;
              }
              const cls = `${String(res.status)[0]}xx`;
              counts.byClass[cls] = (counts.byClass[cls] ?? 0) + 1;
              if (res.status === 413) counts.refusedOversized++;
              let why = judge(e, r, res);
              counts.byKind[kind] = (counts.byKind[kind] ?? 0) + 1;
              // Positive: never refused as invalid (it may still be 403 by plan or role, 404 once deleted, 409).
              if (!why && kind === "valid" && res.status === 400 && !businessRule(e, res.text)) why = "a request the document allows was refused as invalid";
              if (!why && kind === "invalid" && res.status < 400) why = `a request breaking the document (${what}) was accepted with ${res.status}`;
              if (why) failures.push({ op: `${e.method} ${e.path}`, why, request: describe(r), status: res.status, body: res.text.slice(0, 300) });
            }),
          );
        }
      }
    }
    const after = await snapshot(api.sql, victim.orgId);
    const changed = Object.keys(before).filter((t) => before[t] !== after[t]);

    console.log(
      `fuzz: seed ${SEED}, ${counts.requests} requests to ${counts.operations} operations; ` +
        `${Object.entries(counts.byClass).sort().map(([k, v]) => `${k} ${v}`).join(", ")}; ` +
        `kinds ${Object.entries(counts.byKind).sort().map(([k, v]) => `${k} ${v}`).join(", ")}; ` +
        `bodies ${Object.entries(counts.byBody).sort().map(([k, v]) => `${k} ${v}`).join(", ")}; ` +
        `413 ${counts.refusedOversized}; failures ${failures.length}; other organisation's tables changed ${changed.length}`,
    );
    if (changed.length) console.log(`fuzz: the other organisation's ${changed.join(", ")} changed`);
    // One line per kind of failure (operation and reason), with one example request and answer.
    const kinds = new Map<string, Failure & { n: number }>();
    for (const f of failures) {
      const k = `${f.op}: ${f.why}`;
      kinds.set(k, { ...f, n: (kinds.get(k)?.n ?? 0) + 1 });
    }
    for (const [k, f] of [...kinds].slice(0, 60)) console.log(`fuzz failure ×${f.n}: ${k}\n  request ${f.request}\n  answer ${f.status} ${f.body}`);

    expect(counts.requests).toBeGreaterThanOrEqual(all.length * Math.min(RUNS, 20));
    expect([...new Set(failures.map((f) => `${f.op}: ${f.why}`))]).toEqual([]);
    expect(changed).toEqual([]);
  },
  { timeout: 170_000 },
);

/**
 * Rules a JSON Schema cannot state, so a request the document allows may still be refused with 400:
 * they compare two fields or depend on stored state or the clock. Each is written in the operation's
 * description and in docs/api-conventions.md ("Rules beyond the schema"); nothing else may be refused.
 */
const BUSINESS_RULES: [RegExp, RegExp][] = [
  // Comparing fields: from before to, ends after starts, a timeout within the interval, exactly one of two fields.
  [/^GET \/api\/v1\/monitors\/\{id\}\/(checks|uptime|aggregates|maintenance-spans)/, /from must be before to|from is required when to is given|at most \d+ buckets per request|The range is at most \d+ days/],
  // Two ways to give the second factor at sign-in: one at a time.
  [/^POST \/api\/v1\/auth\/signin$/, /Send either totp_code or recovery_code, not both/],
  // Theme CSS is parsed for what could end the style element or load other styles.
  [/^(POST|PATCH) \/api\/v1\/themes/, /custom_css was refused/],
  [/^(POST|PATCH|PUT) \/api\/v1\//, /ends_at must be after starts_at|timeout_ms must not exceed the interval|give exactly one of|give either .* not both|at least one channel binding|Give rrule or cron, not both|Changing the type needs the new type's config/i],
  // Fields that make no sense for the monitor's type (heartbeat monitors are pinged, never run anywhere).
  [/^(POST|PATCH) \/api\/v1\/monitors/, /heartbeat monitors are pinged by the target/],
  // The monitor's or channel's own type decides which config applies (the document lists every type's).
  [/^PATCH \/api\/v1\/(monitors|alert-channels)\/\{id\}$/, /body\.config/],
  // References that must name something of the caller's organisation (or deployment: regions, time zones).
  [/^(POST|PATCH|PUT) \/api\/v1\//, /Unknown |no (alert channel|escalation policy)|is not a (section|component) of this page/],
  // The clock: a key may not be born expired, a window may not end in the past.
  [/^(POST|PATCH) \/api\/v1\/(api-keys|maintenance-windows)/, /Must be in the future|in the past/i],
  // Tokens that must be ones we issued.
  [/^POST \/api\/v1\/auth\/password-reset\/confirm$/, /Reset token is invalid/],
  // Single sign-on: an issuer URL is parsed (https, or http on loopback), the secret is needed once, new members are never owners.
  [/^PUT \/api\/v1\/org\/sso$/, /The issuer must|client secret is required|cannot be made owners/],
  [/^(GET|POST) \/api\/v1\/(reports\/)?unsubscribe$/, /invalid or expired unsubscribe token/i],
  // A report's scope decides whether it names a status page; a weekly day is a weekday; recipients are members.
  [/^(POST|PATCH) \/api\/v1\/reports/, /applies to status-page reports only|A status-page report needs status_page_id|A weekly report's day is an ISO weekday|Not a member of this organisation/],
  // Checked by parsing, not by a pattern: IP ranges, custom domains.
  [/^(POST|PATCH) \/api\/v1\/status-pages/, /Not an IP address or CIDR range|a host name such as/],
  // HTTP assertions: a regular expression RE2 compiles, a JSONPath that parses, an operator and a target the source takes.
  // (A bulk create names the monitor in each issue's path instead: body.monitors[0].config.assertions.0.target.)
  [/^(POST|PATCH) \/api\/v1\/monitors/, /Invalid (http|keyword) config: assertions\.\d+\.|"body\.monitors\[\d+\]\.config\.assertions\.\d+\./],
  // A DNS check's resolver is an IP address (with a port in range); a HEAD request has no body to read (keyword, body assertions).
  [/^(POST|PATCH) \/api\/v1\/monitors/, /is not an IP address: give the DNS server|is out of range \(1-65535\)|a HEAD response has no body|HEAD response has none/],
  // Recurrences checked by parsing: a maintenance window's RRULE or cron expression, a heartbeat's cron schedule.
  [/^(POST|PATCH) \/api\/v1\/maintenance-windows/, /invalid RRULE|needs 5 fields|out of range|cron does not read|step that is not|is not a cron expression|give only the RRULE|a single RRULE line/],
  [/^(POST|PATCH) \/api\/v1\/monitors/, /needs 5 fields|out of range|cron does not read|step that is not|is not a cron expression|the schedule never runs|runs must be at least/],
];
const businessRule = (e: Endpoint, text: string) => BUSINESS_RULES.some(([op, message]) => op.test(`${e.method} ${e.path}`) && message.test(text));

function describe(r: FuzzRequest): string {
  const body = r.bodyKind === "json" ? JSON.stringify(r.body)?.slice(0, 300) : r.bodyKind;
  return `${r.method} ${r.path}${r.query.length ? `?${new URLSearchParams(r.query)}` : ""} auth=${r.headers.authorization ? "yes" : "no"} body=${body}`;
}

it("answers every method the document does not list for a path with 405 and an Allow header naming exactly the listed ones", async () => {
  const wrong: string[] = [];
  let asked = 0;
  const templates = Object.entries(doc.paths).map(([path, item]) => ({ re: new RegExp(`^${path.replace(/\{[^}]+\}/g, "[^/]+")}$`), methods: HTTP_METHODS.filter((m) => m in item).map((m) => m.toUpperCase()) }));
  for (const path of Object.keys(doc.paths)) {
    const concrete = path.replace(/\{[^}]+\}/g, "x1");
    // `/api-keys/scopes` is also `/api-keys/{id}` with id "scopes": every template the URL fits lists its methods.
    const listed = [...new Set(templates.filter((t) => t.re.test(concrete)).flatMap((t) => t.methods))];
    const expected = [...listed, ...(listed.includes("GET") ? ["HEAD"] : [])].sort().join(", ");
    const url = `${api.url}${concrete}`;
    for (const method of ["GET", "POST", "PUT", "PATCH", "DELETE"].filter((m) => !listed.includes(m))) {
      asked++;
      const res = await fetch(url, { method, headers: { authorization: `Bearer ${ownKey}`, "content-type": "application/json" }, body: method === "GET" ? undefined : "{}", redirect: "manual" });
      const body = (await res.json().catch(() => null)) as { code?: string } | null;
      if (res.status !== 405 || res.headers.get("allow") !== expected || body?.code !== "METHOD_NOT_ALLOWED") wrong.push(`${method} ${path} → ${res.status} allow=${res.headers.get("allow")} (expected ${expected})`);
    }
  }
  console.log(`fuzz: ${asked} unlisted methods asked`);
  expect(asked).toBeGreaterThan(100);
  expect(wrong).toEqual([]);
});
