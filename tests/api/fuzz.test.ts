/**
 * Fuzzing every operation of our own OpenAPI document: thousands of generated requests (valid,
 * boundary, wrong-typed, malformed, oversized; real ids of the caller's organisation and of another
 * one; missing, wrong and foreign credentials). Every answer must be below 500, carry a status the
 * document declares for the operation and, when it is an error, the spec's error body; and nothing
 * of the other organisation may change. FUZZ_RUNS sets the requests per operation, FUZZ_SEED the seed.
 */
import { afterAll, beforeAll, expect, it } from "bun:test";
import fc from "fast-check";
import type { Sql } from "../../core/db/client.ts";
import { makeOrg, startTestApi, type TestApi } from "../support/api.ts";
import { type Endpoint, endpoints, type FuzzRequest, type OpenApiDocument, requestArbitrary, toFetch } from "../support/openapi-fuzz.ts";
import { populateOrg, type Populated } from "../support/populate.ts";

const RUNS = Number(process.env.FUZZ_RUNS ?? 24);
const SEED = Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31);
const MAX_BODY_BYTES = 64 * 1024;
const ERROR_KEYS = new Set(["error", "code", "details"]);
/** Operations that reach out to the target of a resource: never aimed at the caller's real resources. */
const REACHES_OUT = /\/(run|test|verify)$/;

let api: TestApi;
let doc: OpenApiDocument;
let victim: { orgId: string; data: Populated };

beforeAll(async () => {
  api = await startTestApi({
    MAX_BODY_BYTES: String(MAX_BODY_BYTES),
    // Nothing generated may leave loopback: no provider, no DNS server but a closed loopback port.
    PADDLE_API_URL: "http://127.0.0.1:9",
    STATUS_PAGE_DNS_SERVERS: "127.0.0.1:9",
    PUBLIC_BASE_URL: "http://127.0.0.1:9",
  });
  doc = (await (await fetch(`${api.url}/openapi.json`)).json()) as OpenApiDocument;
  const org = await makeOrg(api.sql, "business");
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

async function send(r: FuzzRequest, e: Endpoint): Promise<{ status: number; contentType: string; text: string }> {
  const [url, init] = toFetch(api.url, r, MAX_BODY_BYTES);
  const res = await fetch(url, { ...init, signal: AbortSignal.timeout(20_000) });
  const contentType = res.headers.get("content-type") ?? "";
  // Streams (live events, exports) are judged by their status and first bytes.
  if (res.ok && (contentType.includes("text/event-stream") || e.path.endsWith("/export"))) {
    const reader = res.body?.getReader();
    const first = await reader?.read();
    await reader?.cancel().catch(() => {});
    return { status: res.status, contentType, text: first?.value ? new TextDecoder().decode(first.value).slice(0, 200) : "" };
  }
  return { status: res.status, contentType, text: await res.text() };
}

function judge(e: Endpoint, r: FuzzRequest, res: { status: number; contentType: string; text: string }): string | null {
  if (res.status >= 500) return `status ${res.status}`;
  if (!(String(res.status) in e.op.responses)) return `status ${res.status} is not declared (${Object.keys(e.op.responses).join(", ")})`;
  if (res.status >= 400 && res.contentType.includes("json")) {
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(res.text);
    } catch {
      return "error body is not JSON";
    }
    const codes = (doc.components.schemas.ErrorBody!.properties.code.enum as string[]) ?? [];
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

    const counts = { requests: 0, operations: 0, byClass: {} as Record<string, number>, byBody: {} as Record<string, number>, refusedOversized: 0 };
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
        const requests = fc.sample(arb, { numRuns: RUNS, seed: seed++ });
        for (let i = 0; i < requests.length; i += 8) {
          await Promise.all(
            requests.slice(i, i + 8).map(async (r) => {
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
              const why = judge(e, r, res);
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
        `bodies ${Object.entries(counts.byBody).sort().map(([k, v]) => `${k} ${v}`).join(", ")}; ` +
        `413 ${counts.refusedOversized}; failures ${failures.length}; other organisation's tables changed ${changed.length}`,
    );
    if (changed.length) console.log(`fuzz: the other organisation's ${changed.join(", ")} changed`);
    for (const f of failures.slice(0, 15)) console.log(`fuzz failure: ${f.op}: ${f.why}\n  request ${f.request}\n  answer ${f.status} ${f.body}`);

    expect(counts.requests).toBeGreaterThanOrEqual(all.length * Math.min(RUNS, 20));
    expect(failures.map((f) => `${f.op}: ${f.why}`)).toEqual([]);
    expect(changed).toEqual([]);
  },
  { timeout: 170_000 },
);

function describe(r: FuzzRequest): string {
  const body = r.bodyKind === "json" ? JSON.stringify(r.body)?.slice(0, 300) : r.bodyKind;
  return `${r.method} ${r.path}${r.query.length ? `?${new URLSearchParams(r.query)}` : ""} auth=${r.headers.authorization ? "yes" : "no"} body=${body}`;
}
