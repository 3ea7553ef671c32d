import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { client, makeOrg, signUp, startTestApi, type TestApi } from "../support/api.ts";

let api: TestApi;

beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.stop());

type Call = ReturnType<typeof client>;

async function invite(owner: Call, email: string, role: string) {
  const res = await owner("POST", "/api/v1/org/invitations", { email, role_id: role });
  expect(res.status).toBe(201);
  return res.body.token as string;
}

describe("removing a member", () => {
  it("ends their API keys and the invitations they sent for good: re-joining does not bring them back", async () => {
    const org = await makeOrg(api.sql, "pro");
    const owner = client(api.url, { key: org.api_key });
    const admin = await signUp(api.url);
    expect((await admin.call("POST", "/api/v1/invitations/accept", { token: await invite(owner, admin.email, "admin") })).status).toBe(200);
    const inOrg = client(api.url, { cookie: admin.cookie, csrf: admin.csrf, headers: { "x-org-id": org.org_id } });

    const minted = await inOrg("POST", "/api/v1/api-keys", { name: "admin key", scopes: ["org:admin"] });
    expect(minted.status).toBe(201);
    const key = client(api.url, { key: minted.body.key });
    const sent = await inOrg("POST", "/api/v1/org/invitations", { email: `planted-${Date.now()}@example.test`, role_id: "admin" });
    expect(sent.status).toBe(201);
    expect((await key("GET", "/api/v1/audit-log")).status).toBe(200);

    expect((await owner("DELETE", `/api/v1/org/members/${admin.userId}`)).status).toBe(204);
    expect((await key("GET", "/api/v1/audit-log")).status).toBe(401);
    // Neither the key nor the invitation is still listed as live.
    expect((await owner("GET", "/api/v1/api-keys")).body.data.map((k: { id: string }) => k.id)).not.toContain(minted.body.id);
    expect((await owner("GET", "/api/v1/org/invitations")).body.data.map((i: { id: string }) => i.id)).not.toContain(sent.body.id);

    // The person is invited back later (as a viewer): what they held before stays dead.
    expect((await admin.call("POST", "/api/v1/invitations/accept", { token: await invite(owner, admin.email, "viewer") })).status).toBe(200);
    expect((await key("GET", "/api/v1/monitors")).status).toBe(401);
    const planted = await fetch(`${api.url}/api/v1/auth/signup`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: sent.body.email, password: "long enough password", name: "Planted", invitation_token: sent.body.token }),
    });
    expect(planted.status).toBe(404);
  });

  it("refuses to invite someone who is already a member (409), instead of an invitation that can never be accepted", async () => {
    const org = await makeOrg(api.sql, "pro");
    const owner = client(api.url, { key: org.api_key });
    const person = await signUp(api.url);
    expect((await person.call("POST", "/api/v1/invitations/accept", { token: await invite(owner, person.email, "viewer") })).status).toBe(200);
    const again = await owner("POST", "/api/v1/org/invitations", { email: person.email.toUpperCase(), role_id: "member" });
    expect(again.status).toBe(409);
    expect(again.body.code).toBe("CONFLICT");
    expect((await owner("GET", "/api/v1/org/invitations")).body.data).toEqual([]);
  });
});
