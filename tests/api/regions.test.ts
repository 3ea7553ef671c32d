import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { regionSubject } from "../../schemas/messages/check-messages.ts";
import { client, makeOrg, startTestApi, type TestApi } from "../support/api.ts";

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi({ REGIONS: "local,eu-west,us-east", REGION_LOCATIONS: "local=Local,eu-west=Frankfurt,us-east=Virginia" });
});
afterAll(async () => {
  await api.stop();
});

describe("regions and locations", () => {
  it("lists every configured region with its city, workers, backlog and latency", async () => {
    const o = await makeOrg(api.sql, "free");
    const call = client(api.url, { key: o.api_key });
    await api.sql`
      insert into region_workers (worker_id, region, version, concurrency, in_flight, checks_total, recent_p50_ms, started_at, last_seen_at) values
        ('w1', 'eu-west', '1', 50, 3, 10, 120, now(), now()),
        ('w2', 'eu-west', '1', 50, 1, 10, 80, now(), now() - interval '5 seconds'),
        ('w3', 'us-east', '1', 50, 0, 10, 999, now() - interval '1 hour', now() - interval '10 minutes')`;
    await api.bus.ensureTopology();
    await api.bus.publishJob(regionSubject("eu-west"), { id: "queued-1" });
    await api.bus.publishJob(regionSubject("eu-west"), { id: "queued-2" });
    const res = await call("GET", "/api/v1/regions");
    expect(res.status).toBe(200);
    expect(res.body.pagination).toMatchObject({ total: 3, page: 1 });
    const byId = Object.fromEntries(res.body.data.map((r: { id: string }) => [r.id, r]));
    expect(byId["eu-west"]).toMatchObject({ city: "Frankfurt", status: "online", online_workers: 2, in_flight: 4, backlog: 2, p50_latency_ms: 100 });
    expect(byId["us-east"]).toMatchObject({ city: "Virginia", status: "offline", online_workers: 0, backlog: 0, p50_latency_ms: null });
    expect(byId["us-east"].last_seen_at).not.toBeNull();
    expect(byId.local).toMatchObject({ city: "Local", status: "offline", last_seen_at: null });
  });

  it("flags a region over capacity while a scheduler leader says so, and forgets a state no leader refreshes", async () => {
    const o = await makeOrg(api.sql, "free");
    const call = client(api.url, { key: o.api_key });
    await api.sql`
      insert into region_schedule_state (region, overloaded_since, lag_seconds, waiting, updated_at) values
        ('eu-west', now() - interval '2 minutes', 12.34, 500, now()),
        ('us-east', now() - interval '2 hours', 40, 900, now() - interval '10 minutes')
      on conflict (region) do update set overloaded_since = excluded.overloaded_since, lag_seconds = excluded.lag_seconds, updated_at = excluded.updated_at`;
    const res = await call("GET", "/api/v1/regions");
    expect(res.status).toBe(200);
    const byId = Object.fromEntries(res.body.data.map((r: { id: string }) => [r.id, r]));
    expect(byId["eu-west"]).toMatchObject({ overloaded: true, schedule_lag_seconds: 12.3 });
    expect(typeof byId["eu-west"].overloaded_since).toBe("string");
    expect(byId["us-east"]).toMatchObject({ overloaded: false, overloaded_since: null, schedule_lag_seconds: 0 });
    expect(byId.local).toMatchObject({ overloaded: false, schedule_lag_seconds: 0 });
    await api.sql`delete from region_schedule_state`;
  });

  it("lists the locations the plan can check from", async () => {
    const o = await makeOrg(api.sql, "free");
    const res = await client(api.url, { key: o.api_key })("GET", "/api/v1/locations");
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([
      { id: "local", city: "Local", type: "region", usable: true, max_regions_per_monitor: 2 },
      { id: "eu-west", city: "Frankfurt", type: "region", usable: true, max_regions_per_monitor: 2 },
      { id: "us-east", city: "Virginia", type: "region", usable: true, max_regions_per_monitor: 2 },
    ]);
  });

  it("refuses a caller without monitors:read", async () => {
    const o = await makeOrg(api.sql, "free");
    const key = await client(api.url, { key: o.api_key })("POST", "/api/v1/api-keys", { name: "alerts only", scopes: ["alerts:read"] });
    const call = client(api.url, { key: key.body.key });
    expect((await call("GET", "/api/v1/regions")).status).toBe(403);
    expect((await call("GET", "/api/v1/locations")).status).toBe(403);
  });
});
