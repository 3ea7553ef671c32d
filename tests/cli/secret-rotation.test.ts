import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { join } from "node:path";
import { SecretBox } from "../../core/crypto/secrets.ts";
import { newId } from "../../core/ids.ts";
import { ENCRYPTED_COLUMNS } from "../../db/queries/secret-rotation.ts";
import { client, makeOrg, startTestApi, TEST_SECRET_KEY, type TestApi } from "../support/api.ts";
import { createTestDatabase, type TestDatabase } from "../support/db.ts";

const root = join(import.meta.dir, "..", "..");
/** The key the test API encrypts with. */
const OLD = TEST_SECRET_KEY;
const NEW = "rotation-new-secret-key-0123456789abcdef0123";
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

async function cli(env: Record<string, string>, ...args: string[]) {
  const proc = Bun.spawn(["bun", "run", "cli", ...args], { cwd: root, env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", DATABASE_URL: db.url, ...env }, stdout: "pipe", stderr: "pipe" });
  const [code, stdout, stderr] = await Promise.all([proc.exited, new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
  return { code, stdout, stderr };
}

describe("bun run cli secret-key:rotate", () => {
  it("knows every encrypted column of the schema", async () => {
    const rows = await db.sql<{ table_name: string; column_name: string }[]>`
      select c.table_name, c.column_name from information_schema.columns c join information_schema.tables t using (table_schema, table_name)
      where c.table_schema = 'public' and t.table_type = 'BASE TABLE' and c.column_name like '%\\_enc' order by 1, 2`;
    expect(rows.map((r) => `${r.table_name}.${r.column_name}`)).toEqual(ENCRYPTED_COLUMNS.map((c) => `${c.table}.${c.column}`).sort());
  });

  it("re-encrypts every stored secret with the new key, so the old one can go; a second run has nothing to do", async () => {
    const org = await makeOrg(db.sql, "business");
    const call = client(api.url, { key: org.api_key });
    // Secrets written by the API under the old key: a channel's config, a monitor's credentials and heartbeat token.
    const channel = await call("POST", "/api/v1/alert-channels", { name: "hook", type: "webhook", config: { url: "http://127.0.0.1:9/hook", secret: "rotate-me-webhook-secret" } });
    expect(channel.status).toBe(201);
    const monitor = await call("POST", "/api/v1/monitors", { name: "auth", type: "http", config: { url: "http://127.0.0.1:9/", auth: { type: "bearer", token: "rotate-me-bearer" }, headers: { "X-Api-Key": "rotate-me-header" } }, interval_seconds: 300, paused: true });
    expect(monitor.status).toBe(201);
    // A header an older release stored in the clear: the rotation encrypts it too.
    const legacy = await call("POST", "/api/v1/monitors", { name: "legacy", type: "http", config: { url: "http://127.0.0.1:9/" }, interval_seconds: 300, paused: true });
    await db.sql`update monitors set config = ${db.sql.json({ url: "http://127.0.0.1:9/", headers: { Cookie: "sid=rotate-me-legacy" } } as never)} where id = ${legacy.body.id}`;
    const heartbeat = await call("POST", "/api/v1/monitors", { name: "hb", type: "heartbeat", config: { period_seconds: 3600, grace_seconds: 60 } });
    expect(heartbeat.status).toBe(201);
    // And one value no key of ours can read (written by another deployment).
    const foreignUser = newId("usr");
    await db.sql`insert into users (id, email, name, password_hash, totp_secret_enc) values (${foreignUser}, ${`${foreignUser}@example.test`}, 'x', 'x', ${new SecretBox("a-key-nobody-here-has-0123456789abcdef").encrypt("JBSWY3DP")})`;

    const first = await cli({ SECRET_KEY: NEW, SECRET_KEY_PREVIOUS: OLD }, "secret-key:rotate");
    expect(first.code).toBe(1);
    const report = JSON.parse(first.stdout.trim());
    expect(report.unreadable).toBe(1);
    expect(report.columns["alert_channels.config_enc"].reencrypted).toBeGreaterThanOrEqual(1);
    expect(report.columns["monitors.secrets_enc"].reencrypted).toBeGreaterThanOrEqual(1);
    expect(report.columns["monitors.heartbeat_token_enc"].reencrypted).toBeGreaterThanOrEqual(1);

    const onlyNew = new SecretBox(NEW);
    const [ch] = await db.sql`select config_enc from alert_channels where id = ${channel.body.id}`;
    expect(JSON.parse(onlyNew.decrypt(ch!.config_enc)).secret).toBe("rotate-me-webhook-secret");
    const [mon] = await db.sql`select secrets_enc from monitors where id = ${monitor.body.id}`;
    expect(onlyNew.decrypt(mon!.secrets_enc)).toContain("rotate-me-bearer");
    expect(onlyNew.decrypt(mon!.secrets_enc)).toContain("rotate-me-header");
    expect(report.sealed_plaintext_monitors).toBe(1);
    const [old] = await db.sql`select config, secrets_enc from monitors where id = ${legacy.body.id}`;
    expect(JSON.stringify(old!.config)).not.toContain("rotate-me-legacy");
    expect(onlyNew.decrypt(old!.secrets_enc)).toContain("rotate-me-legacy");
    const [hb] = await db.sql`select heartbeat_token_enc from monitors where id = ${heartbeat.body.id}`;
    expect(heartbeat.body.heartbeat_url).toEndWith(onlyNew.decrypt(hb!.heartbeat_token_enc));

    await db.sql`delete from users where id = ${foreignUser}`;
    const second = await cli({ SECRET_KEY: NEW, SECRET_KEY_PREVIOUS: OLD }, "secret-key:rotate");
    expect(second.code).toBe(0);
    const again = JSON.parse(second.stdout.trim());
    expect(Object.values(again.columns as Record<string, { reencrypted: number }>).every((c) => c.reencrypted === 0)).toBe(true);
  });

  it("refuses to run without SECRET_KEY", async () => {
    const res = await cli({ DATA_DIR: "/nonexistent-data-dir" }, "secret-key:rotate");
    expect(res.code).toBe(64);
    expect(res.stderr).toContain("secret-key:rotate needs SECRET_KEY");
  });
});
