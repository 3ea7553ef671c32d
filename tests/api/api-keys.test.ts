/**
 * Who may manage API keys (create, list, revoke): the `api_keys:write` permission, held by
 * sessions and keys alike, and never over a key with scopes beyond the caller's own. A key made
 * by a key is recorded as such and falls with its maker.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { client, joinOrgAs, makeOrg, startTestApi, type TestApi } from "../support/api.ts";

let api: TestApi;

beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.stop());

type Call = ReturnType<typeof client>;

const joinAs = (owner: Call, orgId: string, role: string) => joinOrgAs(api.url, owner, orgId, role);

async function mintKey(call: Call, scopes: string[], extra: Record<string, unknown> = {}) {
  const res = await call("POST", "/api/v1/api-keys", { name: `key-${scopes.join("+")}`, scopes, ...extra });
  expect({ status: res.status, body: res.status === 201 ? "ok" : res.body }).toEqual({ status: 201, body: "ok" });
  return { id: res.body.id as string, key: res.body.key as string, expiresAt: res.body.expires_at as string | null, call: client(api.url, { key: res.body.key }) };
}

/**
 * GET /org's status once the API has heard of a change made straight in the database: its identity cache is cleared
 * by the NOTIFY that change sends, which a loaded machine delivers a little after the statement returns.
 */
async function statusOnceInvalidated(call: Call): Promise<number> {
  const until = Date.now() + 5_000;
  for (;;) {
    const { status } = await call("GET", "/api/v1/org");
    if (status !== 200 || Date.now() > until) return status;
    await Bun.sleep(50);
  }
}

async function signIn(email: string, password: string): Promise<Call> {
  const res = await fetch(`${api.url}/api/v1/auth/signin`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ email, password }) });
  expect(res.status).toBe(200);
  const body = (await res.json()) as { csrf_token: string };
  return client(api.url, { cookie: res.headers.getSetCookie().map((c) => c.split(";")[0]).join("; "), csrf: body.csrf_token });
}

const provisionedKeyId = async (owner: Call) => (await owner("GET", "/api/v1/api-keys?limit=100")).body.data.find((k: { name: string }) => k.name === "provisioned").id as string;
const denied = { code: "PERMISSION_DENIED", details: { permission: "api_keys:write" } };

describe("the permission to manage keys", () => {
  it("refuses a read-only key listing, minting or revoking keys, even its creator's org:admin key", async () => {
    const org = await makeOrg(api.sql);
    const owner = client(api.url, { key: org.api_key });
    const adminKeyId = await provisionedKeyId(owner);
    const reader = await mintKey(owner, ["monitors:read"]);

    for (const [method, path, body] of [
      ["DELETE", `/api/v1/api-keys/${adminKeyId}`, undefined],
      ["DELETE", `/api/v1/api-keys/${reader.id}`, undefined],
      ["GET", "/api/v1/api-keys", undefined],
      ["GET", "/api/v1/api-keys/scopes", undefined],
      ["POST", "/api/v1/api-keys", { name: "same", scopes: ["monitors:read"] }],
    ] as const) {
      const res = await reader.call(method, path, body);
      expect({ op: `${method} ${path}`, status: res.status, code: res.body?.code, details: res.body?.details }).toEqual({ op: `${method} ${path}`, status: 403, ...denied });
    }
    // The admin key still works, and so does the reader.
    expect((await owner("GET", "/api/v1/org")).status).toBe(200);
    expect((await reader.call("GET", "/api/v1/org")).status).toBe(200);
  });

  it("refuses a viewer's session managing keys, and lets a member's session manage their own", async () => {
    const org = await makeOrg(api.sql);
    const owner = client(api.url, { key: org.api_key });
    const viewer = await joinAs(owner, org.org_id, "viewer");
    for (const [method, path, body] of [
      ["POST", "/api/v1/api-keys", { name: "read", scopes: ["monitors:read"] }],
      ["GET", "/api/v1/api-keys", undefined],
      ["DELETE", `/api/v1/api-keys/${await provisionedKeyId(owner)}`, undefined],
    ] as const) {
      const res = await viewer.inOrg(method, path, body);
      expect({ op: `${method} ${path}`, status: res.status, code: res.body?.code, details: res.body?.details }).toEqual({ op: `${method} ${path}`, status: 403, ...denied });
    }
    const member = await joinAs(owner, org.org_id, "member");
    const own = await mintKey(member.inOrg, ["monitors:read", "api_keys:write"]);
    expect((await member.inOrg("GET", "/api/v1/api-keys")).body.data.map((k: { id: string }) => k.id)).toEqual([own.id]);
    expect((await member.inOrg("DELETE", `/api/v1/api-keys/${own.id}`)).status).toBe(204);
  });

  it("lets a key holding api_keys:write see and revoke only keys within its own scopes", async () => {
    const org = await makeOrg(api.sql);
    const owner = client(api.url, { key: org.api_key });
    const adminKeyId = await provisionedKeyId(owner);
    const writer = await mintKey(owner, ["monitors:read", "monitors:write"]);
    const manager = await mintKey(owner, ["monitors:read", "api_keys:write"]);
    const sibling = await mintKey(owner, ["monitors:read"]);

    const listed = (await manager.call("GET", "/api/v1/api-keys")).body;
    expect(listed.data.map((k: { id: string }) => k.id).sort()).toEqual([manager.id, sibling.id].sort());
    expect(listed.pagination.total).toBe(2);
    expect((await manager.call("GET", "/api/v1/api-keys/scopes")).body.data).toEqual(["monitors:read", "api_keys:write"]);

    for (const id of [adminKeyId, writer.id]) {
      const res = await manager.call("DELETE", `/api/v1/api-keys/${id}`);
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({ code: "PERMISSION_DENIED", details: { scopes: expect.any(Array) } });
    }
    const beyond = await manager.call("POST", "/api/v1/api-keys", { name: "wider", scopes: ["monitors:write"] });
    expect(beyond.status).toBe(403);
    expect(beyond.body.details).toEqual({ scopes: ["monitors:write"] });

    expect((await owner("GET", "/api/v1/org")).status).toBe(200);
    expect((await writer.call("GET", "/api/v1/org")).status).toBe(200);
    expect((await manager.call("DELETE", `/api/v1/api-keys/${sibling.id}`)).status).toBe(204);
    expect((await sibling.call("GET", "/api/v1/org")).status).toBe(401);
  });

  it("keeps a member's key to its creator's keys: another member's key is not listed and not revocable", async () => {
    const org = await makeOrg(api.sql);
    const owner = client(api.url, { key: org.api_key });
    const alice = await joinAs(owner, org.org_id, "member");
    const bob = await joinAs(owner, org.org_id, "member");
    const bobs = await mintKey(bob.inOrg, ["monitors:read"]);
    const alices = await mintKey(alice.inOrg, ["monitors:read", "api_keys:write"]);
    expect((await alices.call("GET", "/api/v1/api-keys")).body.data.map((k: { id: string }) => k.id)).toEqual([alices.id]);
    const res = await alices.call("DELETE", `/api/v1/api-keys/${bobs.id}`);
    expect(res.status).toBe(403);
    expect((await bobs.call("GET", "/api/v1/org")).status).toBe(200);
    // An admin sees and revokes everyone's.
    expect((await owner("GET", "/api/v1/api-keys?limit=100")).body.data.map((k: { id: string }) => k.id)).toEqual(expect.arrayContaining([alices.id, bobs.id]));
  });
});

describe("keys made by keys", () => {
  it("records the key that made a key, and revoking it revokes what it made, and what those made", async () => {
    const org = await makeOrg(api.sql);
    const owner = client(api.url, { key: org.api_key });
    const ownerKeyId = await provisionedKeyId(owner);
    const ownerSession = await signIn(org.email, org.password);
    const parent = await mintKey(owner, ["monitors:read", "monitors:write", "api_keys:write"]);
    const child = await mintKey(parent.call, ["monitors:read", "api_keys:write"]);
    const grandchild = await mintKey(child.call, ["monitors:read"]);
    const unrelated = await mintKey(ownerSession, ["monitors:read"]);
    const listed = (await owner("GET", "/api/v1/api-keys?limit=100")).body.data;
    const byId = new Map(listed.map((k: { id: string; created_by_key: string | null }) => [k.id, k.created_by_key]));
    expect([byId.get(parent.id), byId.get(child.id), byId.get(grandchild.id), byId.get(unrelated.id)]).toEqual([ownerKeyId, parent.id, child.id, null]);

    expect((await owner("DELETE", `/api/v1/api-keys/${parent.id}`)).status).toBe(204);
    for (const k of [parent, child, grandchild]) expect((await k.call("GET", "/api/v1/org")).status).toBe(401);
    expect((await unrelated.call("GET", "/api/v1/org")).status).toBe(200);
    const left = (await owner("GET", "/api/v1/api-keys?limit=100")).body.data.map((k: { id: string }) => k.id);
    expect(left).not.toContain(child.id);
    expect(left).not.toContain(grandchild.id);
  });

  it("refuses a key whose maker is revoked or expired even when the revocation did not reach it (a key minted during the revocation)", async () => {
    const org = await makeOrg(api.sql);
    const owner = client(api.url, { key: org.api_key });
    const parent = await mintKey(owner, ["monitors:read", "api_keys:write"]);
    const child = await mintKey(parent.call, ["monitors:read", "api_keys:write"]);
    const grandchild = await mintKey(child.call, ["monitors:read"]);
    expect((await grandchild.call("GET", "/api/v1/org")).status).toBe(200);
    // As if the grandchild had been inserted after the revoking statement read the tree.
    await api.sql`update api_keys set revoked_at = now() where id = ${parent.id}`;
    for (const k of [child, grandchild]) expect(await statusOnceInvalidated(k.call)).toBe(401);

    const other = await mintKey(owner, ["monitors:read", "api_keys:write"]);
    const made = await mintKey(other.call, ["monitors:read"]);
    await api.sql`update api_keys set expires_at = now() - interval '1 second' where id = ${other.id}`;
    expect(await statusOnceInvalidated(made.call)).toBe(401);
  });

  it("never lets a key made by a key outlive its maker's expiry", async () => {
    const org = await makeOrg(api.sql);
    const owner = client(api.url, { key: org.api_key });
    const soon = new Date(Date.now() + 3_600_000).toISOString();
    const parent = await mintKey(owner, ["monitors:read", "api_keys:write"], { expires_at: soon });
    const forever = await mintKey(parent.call, ["monitors:read"]);
    expect(forever.expiresAt).toBe(new Date(soon).toISOString());
    const later = await mintKey(parent.call, ["monitors:read"], { expires_at: new Date(Date.now() + 86_400_000).toISOString() });
    expect(later.expiresAt).toBe(new Date(soon).toISOString());
    const earlier = new Date(Date.now() + 600_000).toISOString();
    expect((await mintKey(parent.call, ["monitors:read"], { expires_at: earlier })).expiresAt).toBe(new Date(earlier).toISOString());
  });

  it("bounds a key made by a member's key by the member's current role, and ends it when they leave", async () => {
    const org = await makeOrg(api.sql);
    const owner = client(api.url, { key: org.api_key });
    const admin = await joinAs(owner, org.org_id, "admin");
    const parent = await mintKey(admin.inOrg, ["org:admin"]);
    const child = await mintKey(parent.call, ["org:admin"]);
    expect((await child.call("PATCH", "/api/v1/org", { name: "Set by a key's key" })).status).toBe(200);

    expect((await owner("PATCH", `/api/v1/org/members/${admin.userId}`, { role_id: "viewer" })).status).toBe(200);
    const rename = await child.call("PATCH", "/api/v1/org", { name: "Still admin?" });
    expect(rename.status).toBe(403);
    expect(rename.body.details).toEqual({ permission: "org:admin" });
    expect((await child.call("GET", "/api/v1/api-keys")).status).toBe(403);
    expect((await child.call("POST", "/api/v1/api-keys", { name: "again", scopes: ["monitors:read"] })).status).toBe(403);
    expect((await child.call("GET", "/api/v1/org")).status).toBe(200);

    expect((await owner("DELETE", `/api/v1/org/members/${admin.userId}`)).status).toBe(204);
    expect((await child.call("GET", "/api/v1/org")).status).toBe(401);
    expect((await parent.call("GET", "/api/v1/org")).status).toBe(401);
  });
});
