import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { client, makeOrg, startTestApi, type TestApi } from "../support/api.ts";

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi({ ALLOW_PRIVATE_IPS: "true" });
}, 60_000);
afterAll(async () => {
  await api.stop();
}, 60_000);

describe("revoking a runner", () => {
  it("removes it from monitors; a monitor left with nowhere to run shows as not monitored and stays so when edited", async () => {
    const o = await makeOrg(api.sql, "business");
    const call = client(api.url, { key: o.api_key });
    const runner = (await call("POST", "/api/v1/runners", { name: "basement" })).body;
    const only = (await call("POST", "/api/v1/monitors", { name: "NAS", type: "tcp", config: { host: "10.0.0.5", port: 445 }, runner_ids: [runner.id] })).body;
    const both = (await call("POST", "/api/v1/monitors", { name: "Site", type: "http", config: { url: "https://shop.example" }, regions: ["local"], runner_ids: [runner.id] })).body;
    expect(only.runner_ids).toEqual([runner.id]);
    expect(only.monitored).toBe(true);

    expect((await call("DELETE", `/api/v1/runners/${runner.id}`)).status).toBe(204);

    const a = (await call("GET", `/api/v1/monitors/${only.id}`)).body;
    expect(a).toMatchObject({ runner_ids: [], regions: [], monitored: false });
    expect(a.not_monitored_reason).toContain("no region or runner");
    const b = (await call("GET", `/api/v1/monitors/${both.id}`)).body;
    expect(b).toMatchObject({ runner_ids: [], regions: ["local"], monitored: true, not_monitored_reason: null });

    // A rename does not quietly move it to a cloud region (which cannot reach its private target).
    const renamed = (await call("PATCH", `/api/v1/monitors/${only.id}`, { name: "NAS (no runner)" })).body;
    expect(renamed).toMatchObject({ regions: [], runner_ids: [], monitored: false });
  });
});
