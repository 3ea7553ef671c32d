import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { client, makeOrg, startTestApi, type TestApi } from "../support/api.ts";

// Issue 23 item 7: POST /monitors/test runs an unsaved monitor's check through a worker (run-now),
// with the create's validation and the worker's private-address guard, and stores nothing.

let api: TestApi;
let guarded: TestApi;
let target: ReturnType<typeof Bun.serve>;
let hits = 0;
// The user walk's IPv6 target: a server on the IPv6 loopback (this machine has ::1).
let target6: ReturnType<typeof Bun.serve>;

beforeAll(async () => {
  api = await startTestApi({ ALLOW_PRIVATE_IPS: "true", IPV6_EGRESS: "true", REGIONS: "local,eu-west" }, undefined, undefined, { workerRegions: ["local"] });
  guarded = await startTestApi({ REGIONS: "eu-west" });
  target = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch: (req) => {
      hits++;
      return new Response("hello", { status: new URL(req.url).pathname === "/broken" ? 500 : 200 });
    },
  });
  target6 = Bun.serve({ port: 0, hostname: "::1", fetch: () => new Response("hello over IPv6") });
});
afterAll(async () => {
  target.stop(true);
  target6.stop(true);
  await api.stop();
  await guarded.stop();
});

const url = (path = "/") => `http://127.0.0.1:${target.port}${path}`;

describe("POST /monitors/test", () => {
  it("runs the check of an unsaved monitor on a worker and answers its result, storing nothing", async () => {
    const o = await makeOrg(api.sql, "business");
    const call = client(api.url, { key: o.api_key });
    const before = hits;
    const up = await call("POST", "/api/v1/monitors/test", { type: "http", config: { url: url() } });
    expect(up.status).toBe(200);
    expect(up.body).toMatchObject({ status: "up", location: "local", data: { status_code: 200 } });
    expect(up.body.id).toBeUndefined();
    expect(hits).toBe(before + 1);
    const down = await call("POST", "/api/v1/monitors/test", { name: "Broken", type: "http", config: { url: url("/broken") } });
    expect(down.body).toMatchObject({ status: "down", data: { status_code: 500 } });
    expect(down.body.error).toBeString();
    expect((await call("GET", "/api/v1/monitors")).body.pagination.total).toBe(0);
    const [{ n }] = await api.sql<{ n: number }[]>`select count(*)::int as n from check_results where org_id = ${o.org_id}`;
    expect(n).toBe(0);
  });

  it("validates the body as a create does, naming the field", async () => {
    const o = await makeOrg(api.sql, "business");
    const call = client(api.url, { key: o.api_key });
    const bad = await call("POST", "/api/v1/monitors/test", { type: "http", config: { url: url(), expected_status: [99] } });
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe("VALIDATION_ERROR");
    expect(JSON.stringify(bad.body.details)).toContain("body.config.expected_status");
    const region = await call("POST", "/api/v1/monitors/test", { type: "http", config: { url: url() }, regions: ["mars"] });
    expect(region.status).toBe(400);
    const extra = await call("POST", "/api/v1/monitors/test", { type: "http", config: { url: url() }, tags: ["x"] });
    expect(extra.status).toBe(400);
    const hb = await call("POST", "/api/v1/monitors/test", { type: "heartbeat", config: {} });
    expect(hb.status).toBe(409);
  });

  it("answers 503 when no worker of the region is connected", async () => {
    const o = await makeOrg(api.sql, "business");
    const call = client(api.url, { key: o.api_key });
    const res = await call("POST", "/api/v1/monitors/test", { type: "http", config: { url: url() }, regions: ["eu-west"] });
    expect(res.status).toBe(503);
    expect(res.body).toMatchObject({ code: "SERVICE_UNAVAILABLE", details: { reason: "no_worker" } });
  });

  it("keeps the worker's private-address guard: a loopback target is refused where private targets are not allowed", async () => {
    const o = await makeOrg(guarded.sql, "business");
    const call = client(guarded.url, { key: o.api_key });
    const before = hits;
    const res = await call("POST", "/api/v1/monitors/test", { type: "http", config: { url: url() } });
    expect(res.status).toBe(200);
    expect(res.body.status).toBe("down");
    expect(res.body.error).toMatch(/private|not allowed|blocked|refused/i);
    expect(hits).toBe(before);
  });

  it("checks IPv6 targets from a self-hosted local region with IPv6 egress, saved and tested alike", async () => {
    const o = await makeOrg(api.sql, "business");
    const call = client(api.url, { key: o.api_key });
    const http = { type: "http", config: { url: `http://[::1]:${target6.port}/` } };
    const tcp = { type: "tcp", config: { host: "::1", port: target6.port } };
    for (const monitor of [http, tcp]) {
      const tested = await call("POST", "/api/v1/monitors/test", monitor);
      expect(tested.status).toBe(200);
      expect(tested.body).toMatchObject({ status: "up", location: "local", data: { ip: "::1" } });
      const saved = await call("POST", "/api/v1/monitors", { name: `IPv6 ${monitor.type}`, ...monitor });
      expect(saved.status).toBe(201);
      const ran = await call("POST", `/api/v1/monitors/${saved.body.id}/run`);
      expect(ran.body).toMatchObject({ status: "up" });
    }
  });

  it("keeps the guard for IPv6: loopback, unique-local, link-local and mapped metadata refused where private targets are not allowed", async () => {
    const o = await makeOrg(guarded.sql, "business");
    const call = client(guarded.url, { key: o.api_key });
    for (const host of ["::1", "fd12:3456::1", "fe80::1", "::ffff:169.254.169.254"]) {
      const res = await call("POST", "/api/v1/monitors/test", { type: "tcp", config: { host, port: 80 } });
      expect(res.status).toBe(200);
      expect(res.body.status).toBe("down");
      expect(res.body.error).toContain("refused to contact");
      expect(res.body.error).not.toContain("IPv4 only");
    }
  });

  it("says which setting opens IPv6 in a region without IPv6 egress", async () => {
    const o = await makeOrg(guarded.sql, "business");
    const call = client(guarded.url, { key: o.api_key });
    const res = await call("POST", "/api/v1/monitors/test", { type: "tcp", config: { host: "2001:4860:4860::8888", port: 53 } });
    expect(res.body.status).toBe("down");
    expect(res.body.error).toContain("IPV6_EGRESS");
  });
});
