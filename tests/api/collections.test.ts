import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { client, makeOrg, signUp, startTestApi, type TestApi } from "../support/api.ts";

let api: TestApi;

beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.stop());

type Call = ReturnType<typeof client>;

const expectPage = (res: { status: number; body: any }, page: number, limit: number, total: number) => {
  expect(res.status).toBe(200);
  expect(res.body.pagination).toEqual({ page, limit, total, totalPages: Math.ceil(total / limit), hasMore: page < Math.ceil(total / limit) });
  expect(res.body.data).toHaveLength(Math.max(0, Math.min(limit, total - (page - 1) * limit)));
};

/** The collection answers the envelope, pages by limit, and refuses limit=101 with the spec's 400. */
async function expectCollection(call: Call, path: string, total: number) {
  const all = await call("GET", path);
  expectPage(all, 1, 20, total);
  const sep = path.includes("?") ? "&" : "?";
  if (total > 1) {
    const first = await call("GET", `${path}${sep}limit=1`);
    const second = await call("GET", `${path}${sep}limit=1&page=2`);
    expectPage(first, 1, 1, total);
    expectPage(second, 2, 1, total);
    expect(second.body.data[0]).toEqual(all.body.data[1]);
  }
  expectPage(await call("GET", `${path}${sep}page=${total + 2}`), total + 2, 20, total);
  const tooMany = await call("GET", `${path}${sep}limit=101`);
  expect(tooMany.status).toBe(400);
  expect(tooMany.body.code).toBe("VALIDATION_ERROR");
  expect(tooMany.body.details.issues.map((i: { path: string }) => i.path)).toContain("query.limit");
}

describe("every collection answers { data, pagination } and refuses limit above 100", () => {
  it("pages /themes, /monitor-groups, /org/roles, /billing/addons/active and /billing/overlaps", async () => {
    const org = await makeOrg(api.sql);
    const call = client(api.url, { key: org.api_key });
    for (const tag of ["a", "b", "c"]) {
      const created = await call("POST", "/api/v1/monitors", { name: `m-${tag}`, type: "tcp", config: { host: "127.0.0.1", port: 5432 }, tags: [tag], paused: true });
      expect(created.status).toBe(201);
    }
    await expectCollection(call, "/api/v1/themes", 3);
    await expectCollection(call, "/api/v1/monitor-groups", 3);
    await expectCollection(call, "/api/v1/org/roles", 4);
    expect((await call("GET", "/api/v1/org/roles")).body.permissions).toContain("monitors:read");
    await expectCollection(call, "/api/v1/billing/addons/active", 0);
    await expectCollection(call, "/api/v1/billing/overlaps", 0);
  });

  it("pages /orgs, /user/sessions and /invitations of the signed-in user", async () => {
    const user = await signUp(api.url);
    expect((await user.call("POST", "/api/v1/orgs", { name: "Second" })).status).toBe(201);
    // Sign-up proves no address, and /invitations lists nothing until a mailed token has (docs/api-conventions.md):
    // the user accepts one invitation by its emailed token first, as they would from the link, which joins a third organisation.
    const proving = await makeOrg(api.sql);
    const proof = await client(api.url, { key: proving.api_key })("POST", "/api/v1/org/invitations", { email: user.email, role_id: "member" });
    expect(proof.status).toBe(201);
    expect((await user.call("POST", "/api/v1/invitations/accept", { token: proof.body.token })).status).toBe(200);
    const again = await fetch(`${api.url}/api/v1/auth/signin`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ email: user.email, password: user.password }) });
    expect(again.status).toBe(200);
    for (let n = 0; n < 2; n++) {
      const inviter = await makeOrg(api.sql);
      const sent = await client(api.url, { key: inviter.api_key })("POST", "/api/v1/org/invitations", { email: user.email, role_id: "member" });
      expect(sent.status).toBe(201);
    }
    await expectCollection(user.call, "/api/v1/orgs", 3);
    await expectCollection(user.call, "/api/v1/user/sessions", 2);
    await expectCollection(user.call, "/api/v1/invitations", 2);
  });
});

/** Answers with a `data` array that are not collections of resources, and why they are not paged. */
const NOT_COLLECTIONS: Record<string, string> = {
  "GET /api/v1/api-keys/scopes": "the fixed set of scope names a key may carry, beside `all`",
  "GET /api/v1/monitors/uptime": "one figure per monitor id the caller named in `ids` (at most 100)",
  "GET /api/v1/monitors/{id}/aggregates": "time buckets of the requested window and resolution",
  "GET /api/v1/monitors/{id}/maintenance-spans": "the maintenance occurrences inside the requested range (at most 400 days, at most 1,000 spans)",
};

describe("the OpenAPI document's collections", () => {
  it("gives every GET answering a data array the pagination envelope and a limit of at most 100", async () => {
    const doc = (await (await fetch(`${api.url}/openapi.json`)).json()) as { paths: Record<string, Record<string, any>>; components: { schemas: Record<string, any> } };
    const resolve = (s: any): any => (s?.$ref ? doc.components.schemas[s.$ref.split("/").pop()] : s);
    const wrong: string[] = [];
    for (const [path, item] of Object.entries(doc.paths)) {
      const op = item.get;
      const schema = resolve(op?.responses?.["200"]?.content?.["application/json"]?.schema);
      if (!path.startsWith("/api/v1/") || `GET ${path}` in NOT_COLLECTIONS || resolve(schema?.properties?.data)?.type !== "array") continue;
      const limit = (op.parameters ?? []).find((p: any) => p.in === "query" && p.name === "limit");
      if (!schema.properties.pagination || limit?.schema?.maximum !== 100) wrong.push(`GET ${path}`);
    }
    expect(wrong).toEqual([]);
  });
});
