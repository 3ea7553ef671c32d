import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { client, makeOrg, startTestApi, type CallResult, type TestApi } from "../support/api.ts";
import { createTestDatabase, type TestDatabase } from "../support/db.ts";

/**
 * Limits count in fixed one-minute windows (wall clock, shared by every process). A burst that
 * straddles a minute boundary spends two windows, so each burst starts with at least 5 s left.
 */
async function freshWindowRoom(needMs = 5000): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < needMs) await Bun.sleep(left + 50);
}

/** A test may wait out the end of a window first. */
const MAY_WAIT = 20_000;

const fromIp = (ip: string) => ({ "x-forwarded-for": ip });
let ipCounter = 0;
/** A client address of its own for each test, so per-IP buckets never mix (TRUST_PROXY is on). */
const nextIp = () => `198.51.100.${++ipCounter}`;

function expect429(res: CallResult, limit: number) {
  expect(res.status).toBe(429);
  const retry = res.body.details?.retryAfterSeconds;
  expect(res.body).toEqual({ error: "Too many requests", code: "RATE_LIMIT_EXCEEDED", details: { retryAfterSeconds: retry } });
  expect(retry).toBeGreaterThanOrEqual(1);
  expect(retry).toBeLessThanOrEqual(60);
  expect(res.headers.get("retry-after")).toBe(String(retry));
  expect(res.headers.get("x-ratelimit-limit")).toBe(String(limit));
  expect(res.headers.get("x-ratelimit-remaining")).toBe("0");
}

function rateHeaders(res: CallResult) {
  return {
    limit: Number(res.headers.get("x-ratelimit-limit")),
    remaining: Number(res.headers.get("x-ratelimit-remaining")),
    reset: Number(res.headers.get("x-ratelimit-reset")),
  };
}

// Every API in this file shares one database: buckets are keyed by organisation or address, and each test uses its own.
let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(() => db.drop());

describe("one API process", () => {
  let api: TestApi;
  const PER_ORG = 6;
  const PER_IP = 4;
  const PER_SESSION = 5;
  const SIGNIN = 2;
  const SIGNUP = 2;
  const RESET = 2;

  beforeAll(async () => {
    api = await startTestApi({
      TRUST_PROXY: "true",
      MAX_BODY_BYTES: "2048",
      RATE_LIMIT_PER_ORG: String(PER_ORG),
      RATE_LIMIT_PER_IP: String(PER_IP),
      RATE_LIMIT_PER_SESSION: String(PER_SESSION),
      RATE_LIMIT_SIGNIN_PER_IP: String(SIGNIN),
      RATE_LIMIT_SIGNUP_PER_IP: String(SIGNUP),
      RATE_LIMIT_RESET_PER_IP: String(RESET),
    }, db);
  });
  afterAll(() => api.stop());

  it("stamps X-RateLimit-Limit, Remaining and Reset on successes and on errors", async () => {
    await freshWindowRoom();
    const org = await makeOrg(api.sql);
    const call = client(api.url, { key: org.api_key });
    const answers = [
      await call("GET", "/api/v1/org"),
      await call("GET", "/api/v1/nothing-here"),
      await call("POST", "/api/v1/org/roles", { name: "" }),
      await call("POST", "/api/v1/api-keys", { name: "x".repeat(3000), scopes: ["monitors:read"] }),
      await call("DELETE", "/api/v1/api-keys/key_missing"),
    ];
    expect(answers.map((r) => r.status)).toEqual([200, 404, 400, 413, 404]);
    answers.forEach((res, i) => {
      const h = rateHeaders(res);
      expect(h.limit).toBe(PER_ORG);
      expect(h.remaining).toBe(PER_ORG - 1 - i);
      expect(h.reset).toBeGreaterThanOrEqual(1);
      expect(h.reset).toBeLessThanOrEqual(60);
    });
    const anonymous = await client(api.url, { headers: fromIp(nextIp()) })("GET", "/api/v1/org");
    expect(anonymous.status).toBe(401);
    expect(rateHeaders(anonymous)).toMatchObject({ limit: PER_IP, remaining: PER_IP - 1 });
  }, MAY_WAIT);

  it("refuses an organisation over its limit with 429, Retry-After and details.retryAfterSeconds, across its keys", async () => {
    await freshWindowRoom();
    const org = await makeOrg(api.sql);
    const first = client(api.url, { key: org.api_key });
    const made = await first("POST", "/api/v1/api-keys", { name: "second", scopes: ["monitors:read"] });
    const second = client(api.url, { key: made.body.key });
    const statuses: number[] = [];
    for (let i = 0; i < PER_ORG - 1; i++) statuses.push((await (i % 2 ? first : second)("GET", "/api/v1/org")).status);
    expect(statuses).toEqual(Array(PER_ORG - 1).fill(200));
    expect429(await first("GET", "/api/v1/org"), PER_ORG);
    expect429(await second("GET", "/api/v1/api-keys"), PER_ORG);
  }, MAY_WAIT);

  it("gives a signed-in session a budget of its own, apart from the organisation's API keys", async () => {
    await freshWindowRoom();
    const org = await makeOrg(api.sql);
    const signin = await client(api.url, { headers: fromIp(nextIp()) })("POST", "/api/v1/auth/signin", { email: org.email, password: org.password });
    expect(signin.status).toBe(200);
    const cookie = signin.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ");
    const dashboard = client(api.url, { cookie });
    const ci = client(api.url, { key: org.api_key });
    // The organisation's keys spend their whole budget: the signed-in user is not signed out by it.
    for (let i = 0; i < PER_ORG; i++) expect((await ci("GET", "/api/v1/org")).status).toBe(200);
    expect429(await ci("GET", "/api/v1/org"), PER_ORG);
    const first = await dashboard("GET", "/api/v1/user");
    expect(first.status).toBe(200);
    expect(rateHeaders(first)).toMatchObject({ limit: PER_SESSION, remaining: PER_SESSION - 1 });
    for (let i = 1; i < PER_SESSION; i++) expect((await dashboard("GET", "/api/v1/user")).status).toBe(200);
    // Its own budget is finite too, and spending it leaves the keys' budget as it was.
    expect429(await dashboard("GET", "/api/v1/user"), PER_SESSION);
    expect429(await ci("GET", "/api/v1/org"), PER_ORG);
  }, MAY_WAIT);

  it("keeps one organisation's limit away from another's", async () => {
    await freshWindowRoom();
    const busy = await makeOrg(api.sql);
    const quiet = await makeOrg(api.sql);
    const answers = await Promise.all(Array.from({ length: PER_ORG + 3 }, () => client(api.url, { key: busy.api_key })("GET", "/api/v1/org")));
    expect(answers.filter((r) => r.status === 200)).toHaveLength(PER_ORG);
    expect(answers.filter((r) => r.status === 429)).toHaveLength(3);
    const other = await client(api.url, { key: quiet.api_key })("GET", "/api/v1/org");
    expect(other.status).toBe(200);
    expect(rateHeaders(other).remaining).toBe(PER_ORG - 1);
  }, MAY_WAIT);

  it("limits unauthenticated requests per IP, counting bad keys, without touching signed-in callers", async () => {
    await freshWindowRoom();
    const ip = nextIp();
    const anonymous = client(api.url, { headers: fromIp(ip) });
    const guessing = client(api.url, { key: "wp_live_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", headers: fromIp(ip) });
    const statuses = [];
    for (let i = 0; i < PER_IP; i++) statuses.push((await (i % 2 ? anonymous : guessing)("GET", "/api/v1/org")).status);
    expect(statuses).toEqual(Array(PER_IP).fill(401));
    expect429(await anonymous("GET", "/api/v1/org"), PER_IP);
    expect429(await guessing("GET", "/api/v1/org"), PER_IP);
    // Another address still gets through; so does a valid key from the exhausted one.
    expect((await client(api.url, { headers: fromIp(nextIp()) })("GET", "/api/v1/org")).status).toBe(401);
    const org = await makeOrg(api.sql);
    expect((await client(api.url, { key: org.api_key, headers: fromIp(ip) })("GET", "/api/v1/org")).status).toBe(200);
  }, MAY_WAIT);

  it("ignores X-Forwarded-For unless TRUST_PROXY is set", async () => {
    // The only API here that sees every caller as 127.0.0.1.
    const direct = await startTestApi({ RATE_LIMIT_PER_IP: "2" }, db);
    try {
      await freshWindowRoom();
      const statuses = [];
      for (let i = 0; i < 3; i++) statuses.push((await client(direct.url, { headers: fromIp(nextIp()) })("GET", "/api/v1/org")).status);
      expect(statuses).toEqual([401, 401, 429]);
    } finally {
      await direct.stop();
    }
  }, MAY_WAIT);

  it("applies the tighter sign-in limit per IP, even to a correct password", async () => {
    await freshWindowRoom();
    const org = await makeOrg(api.sql);
    const ip = nextIp();
    const call = client(api.url, { headers: fromIp(ip) });
    for (let i = 0; i < SIGNIN; i++) expect((await call("POST", "/api/v1/auth/signin", { email: org.email, password: "wrong password" })).status).toBe(401);
    expect429(await call("POST", "/api/v1/auth/signin", { email: org.email, password: org.password }), SIGNIN);
    expect((await client(api.url, { headers: fromIp(nextIp()) })("POST", "/api/v1/auth/signin", { email: org.email, password: org.password })).status).toBe(200);
  }, MAY_WAIT);

  it("applies the tighter sign-up and password-reset limits per IP", async () => {
    await freshWindowRoom();
    const ip = nextIp();
    const call = client(api.url, { headers: fromIp(ip) });
    const signup = (n: number) => call("POST", "/api/v1/auth/signup", { email: `rl-${ip}-${n}@example.test`, password: "long enough password", name: "Limited" });
    for (let n = 0; n < SIGNUP; n++) expect((await signup(n)).status).toBe(201);
    expect429(await signup(99), SIGNUP);
    const resetIp = nextIp();
    const reset = client(api.url, { headers: fromIp(resetIp) });
    for (let n = 0; n < RESET; n++) expect((await reset("POST", "/api/v1/auth/password-reset/request", { email: `nobody-${n}@example.test` })).status).toBe(202);
    expect429(await reset("POST", "/api/v1/auth/password-reset/confirm", { token: "x".repeat(20), password: "long enough password" }), RESET);
  }, MAY_WAIT);
});

describe("two API processes on one database", () => {
  const LIMIT = 20;
  let first: TestApi;
  let second: TestApi;

  beforeAll(async () => {
    first = await startTestApi({ RATE_LIMIT_PER_ORG: String(LIMIT) }, db);
    second = await startTestApi({ RATE_LIMIT_PER_ORG: String(LIMIT) }, db);
  });
  afterAll(async () => {
    await second.stop();
    await first.stop();
  });

  // With a limit under 50 each process leases one token at a time, so the shared total is exact.
  it("allows exactly RATE_LIMIT_PER_ORG requests per window across both, and refuses the rest", async () => {
    const org = await makeOrg(first.sql);
    await freshWindowRoom();
    // One request through each first, so both processes hold part of the window whatever order the burst takes
    // (under load one process could take every token of a burst alone).
    const opening = [await client(first.url, { key: org.api_key })("GET", "/api/v1/org"), await client(second.url, { key: org.api_key })("GET", "/api/v1/org")];
    expect(opening.map((r) => r.status)).toEqual([200, 200]);
    const answers = await Promise.all(
      Array.from({ length: 48 }, (_, i) => client((i % 2 ? first : second).url, { key: org.api_key })("GET", "/api/v1/org").then((r) => ({ via: i % 2, r }))),
    );
    const allowed = answers.filter((a) => a.r.status === 200);
    expect(allowed).toHaveLength(LIMIT - 2);
    expect(answers.filter((a) => a.r.status === 429)).toHaveLength(48 - (LIMIT - 2));
    for (const { r } of answers) expect(r.headers.get("x-ratelimit-limit")).toBe(String(LIMIT));
    // Each process now refuses on its own, without another lease.
    expect((await client(first.url, { key: org.api_key })("GET", "/api/v1/org")).status).toBe(429);
    expect((await client(second.url, { key: org.api_key })("GET", "/api/v1/org")).status).toBe(429);
    const [row] = await first.sql<{ n: number }[]>`select sum(count)::int as n from rate_limit_windows where key = ${`org:${org.org_id}`}`;
    expect(row!.n).toBeGreaterThanOrEqual(LIMIT);
  }, MAY_WAIT);

  it("never lets the two processes together exceed a large limit that is leased in chunks", async () => {
    // 150/min leases 3 tokens at a time: a process may refuse while holding unspent tokens
    // (at most one lease each), never allow more than the limit.
    const big = 150;
    const lease = 3;
    const a = await startTestApi({ RATE_LIMIT_PER_ORG: String(big) }, db);
    const b = await startTestApi({ RATE_LIMIT_PER_ORG: String(big) }, db);
    try {
      const org = await makeOrg(first.sql);
      await freshWindowRoom();
      const answers = await Promise.all(Array.from({ length: 200 }, (_, i) => client((i % 2 ? a : b).url, { key: org.api_key })("GET", "/api/v1/org")));
      const allowed = answers.filter((r) => r.status === 200).length;
      expect(allowed).toBeLessThanOrEqual(big);
      expect(allowed).toBeGreaterThanOrEqual(big - 2 * lease);
      expect(allowed + answers.filter((r) => r.status === 429).length).toBe(200);
    } finally {
      await b.stop();
      await a.stop();
    }
  }, MAY_WAIT);
});
