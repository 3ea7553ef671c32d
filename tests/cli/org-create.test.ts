import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { join } from "node:path";
import { client, startTestApi, type TestApi } from "../support/api.ts";
import { createTestDatabase, type TestDatabase } from "../support/db.ts";

const root = join(import.meta.dir, "..", "..");
let db: TestDatabase;
let api: TestApi;

beforeAll(async () => {
  db = await createTestDatabase();
  api = await startTestApi({}, db);
});
afterAll(async () => {
  await api.stop();
  await db.drop();
});

/** `bun run cli …` as an operator types it, against the test database only. */
async function cli(...args: string[]) {
  const env: Record<string, string> = { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", DATABASE_URL: db.url, LOG_LEVEL: "info" };
  const proc = Bun.spawn(["bun", "run", "cli", ...args], { cwd: root, env, stdout: "pipe", stderr: "pipe" });
  const [code, stdout, stderr] = await Promise.all([proc.exited, new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
  return { code, stdout, stderr };
}

describe("bun run cli org:create", () => {
  it("prints exactly one JSON line whose key works against an API on the same database", async () => {
    const email = `cli-${Date.now()}@example.test`;
    const res = await cli("org:create", "--name", "Acme Ops", "--email", email, "--password", "a long cli password", "--plan", "pro");
    expect(res.code).toBe(0);
    const lines = res.stdout.split("\n").filter((l) => l !== "");
    expect(lines).toHaveLength(1);
    const out = JSON.parse(lines[0]!);
    expect(Object.keys(out).sort()).toEqual(["api_key", "org_id", "user_id"]);
    expect(out.api_key).toMatch(/^wp_live_/);

    const call = client(api.url, { key: out.api_key });
    const org = await call("GET", "/api/v1/org");
    expect(org.status).toBe(200);
    expect(org.body).toMatchObject({ id: out.org_id, name: "Acme Ops", plan: "pro" });
    const members = await call("GET", "/api/v1/org/members");
    expect(members.body.data).toEqual([expect.objectContaining({ user_id: out.user_id, email, role_id: "owner" })]);
    const signin = await client(api.url)("POST", "/api/v1/auth/signin", { email, password: "a long cli password" });
    expect(signin.status).toBe(200);
  });

  it("names the owner with --user-name, else after the part of the email before @, never after the organisation", async () => {
    const stamp = Date.now();
    const named = await cli("org:create", "--name", "Acme Named", "--email", `ops.lead-${stamp}@example.test`, "--password", "a long cli password", "--user-name", "Olga Petrova");
    expect(named.code).toBe(0);
    const out = JSON.parse(named.stdout.trim());
    expect((await db.sql`select name from users where id = ${out.user_id}`)[0]!.name).toBe("Olga Petrova");

    const unnamed = await cli("org:create", "--name", "Acme Unnamed", "--email", `ops.team-${stamp}@example.test`, "--password", "a long cli password");
    expect(unnamed.code).toBe(0);
    const out2 = JSON.parse(unnamed.stdout.trim());
    expect((await db.sql`select name from users where id = ${out2.user_id}`)[0]!.name).toBe(`ops.team-${stamp}`);
    const me = await client(api.url, { key: out2.api_key })("GET", "/api/v1/org/members");
    expect(me.body.data[0].name).toBe(`ops.team-${stamp}`);
  });

  it("exits non-zero with the usage on missing, unknown or valueless arguments", async () => {
    for (const args of [[], ["org:delete"], ["org:create", "--name", "No email"], ["org:create", "--name", "X", "--email", "x@example.test", "--password", "pw long enough", "--colour", "red"], ["org:create", "--name"]]) {
      const res = await cli(...args);
      expect(res.code).not.toBe(0);
      expect(res.stdout).toBe("");
      expect(res.stderr).toContain("usage: bun run cli org:create --name NAME --email EMAIL --password PASSWORD");
      expect(res.stderr).not.toContain("    at ");
    }
  });

  it("refuses an unknown plan with the error body and creates nothing", async () => {
    const email = `noplan-${Date.now()}@example.test`;
    const res = await cli("org:create", "--name", "Nope", "--email", email, "--password", "a long cli password", "--plan", "platinum");
    expect(res.code).toBe(1);
    expect(res.stdout).toBe("");
    const line = res.stderr.split("\n").find((l) => l.startsWith("{"))!;
    expect(JSON.parse(line)).toEqual({ error: "Request validation failed", code: "VALIDATION_ERROR", details: { issues: [{ path: "plan", message: "Unknown plan platinum" }] } });
    expect(await db.sql`select 1 from users where email = ${email}`).toHaveLength(0);
  });
});
