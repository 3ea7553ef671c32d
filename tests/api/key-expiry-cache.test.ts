import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { client, makeOrg, startTestApi, type TestApi } from "../support/api.ts";

let api: TestApi;

beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.stop());

describe("an API key's expiry", () => {
  it("holds to the second even when the key was just used (and its caller cached)", async () => {
    const org = await makeOrg(api.sql, "pro");
    const owner = client(api.url, { key: org.api_key });
    const expiresAt = new Date(Date.now() + 2500);
    const minted = await owner("POST", "/api/v1/api-keys", { name: "short-lived", scopes: ["monitors:read"], expires_at: expiresAt.toISOString() });
    expect(minted.status).toBe(201);
    const key = client(api.url, { key: minted.body.key });
    expect((await key("GET", "/api/v1/monitors")).status).toBe(200);
    await Bun.sleep(expiresAt.getTime() - Date.now() + 300);
    const after = await key("GET", "/api/v1/monitors");
    expect(after.status).toBe(401);
    expect(after.body.code).toBe("UNAUTHENTICATED");
  });
});
