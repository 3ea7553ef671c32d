import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { client, makeOrg, signUp, startTestApi, type TestApi } from "../support/api.ts";

/** Secrets of monitors (headers, basic-auth passwords, secret flow values): encrypted at rest, redacted to every reader. */
let api: TestApi;
let target: ReturnType<typeof Bun.serve>;
/** Headers the target received, last request first. */
const seen: Headers[] = [];

beforeAll(async () => {
  api = await startTestApi({ ALLOW_PRIVATE_IPS: "true" });
  target = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch: (req) => {
      seen.unshift(req.headers);
      return new Response("ok");
    },
  });
});
afterAll(async () => {
  target.stop(true);
  await api.stop();
});

const REDACTED = "••••••••";
const url = () => `http://127.0.0.1:${target.port}/ok`;

async function org() {
  const o = await makeOrg(api.sql, "business");
  return { ...o, call: client(api.url, { key: o.api_key }) };
}

async function storedRow(id: string) {
  const [row] = await api.sql<{ config: Record<string, unknown>; secrets_enc: string | null }[]>`select config, secrets_enc from monitors where id = ${id}`;
  return { config: JSON.stringify(row!.config), secrets: row!.secrets_enc ? api.server.deps.box.decrypt(row!.secrets_enc) : "" };
}

describe("monitor secrets", () => {
  it("stores secret headers encrypted and returns them redacted, leaving other headers as they are", async () => {
    const { call } = await org();
    const headers = {
      Authorization: "Bearer auth-header-secret-1",
      Cookie: "sid=cookie-secret-2",
      "X-Api-Key": "api-key-secret-3",
      "X-Upstream-Token": "token-secret-4",
      "X-Custom": "marked-secret-5",
      "X-Trace": "not-a-secret",
    };
    const created = await call("POST", "/api/v1/monitors", { name: "h", type: "http", config: { url: url(), headers, secret_headers: ["x-custom"] } });
    expect(created.status).toBe(201);
    expect(created.body.config.headers).toEqual({
      Authorization: REDACTED,
      Cookie: REDACTED,
      "X-Api-Key": REDACTED,
      "X-Upstream-Token": REDACTED,
      "X-Custom": REDACTED,
      "X-Trace": "not-a-secret",
    });
    const shown = JSON.stringify([created.body, (await call("GET", `/api/v1/monitors/${created.body.id}`)).body, (await call("GET", "/api/v1/monitors")).body]);
    const row = await storedRow(created.body.id);
    for (const n of [1, 2, 3, 4, 5]) {
      expect(shown).not.toContain(`secret-${n}`);
      expect(row.config).not.toContain(`secret-${n}`);
      expect(row.secrets).toContain(`secret-${n}`);
    }
  });

  it("keeps a stored header when its redacted value is sent back, and the check still sends the real value", async () => {
    const { call } = await org();
    const created = await call("POST", "/api/v1/monitors", { name: "h", type: "keyword", config: { url: url(), keyword: "ok", headers: { authorization: "Bearer keep-me-please" } } });
    expect(created.status).toBe(201);
    const patched = await call("PATCH", `/api/v1/monitors/${created.body.id}`, { name: "renamed", config: created.body.config });
    expect(patched.status).toBe(200);
    expect(patched.body.config.headers).toEqual({ authorization: REDACTED });
    const run = await call("POST", `/api/v1/monitors/${created.body.id}/run`);
    expect(run.status).toBe(200);
    expect(seen[0]!.get("authorization")).toBe("Bearer keep-me-please");
    // A new value replaces it.
    const changed = await call("PATCH", `/api/v1/monitors/${created.body.id}`, { config: { ...created.body.config, headers: { authorization: "Bearer the-new-one" } } });
    expect(changed.status).toBe(200);
    expect((await storedRow(created.body.id)).secrets).toContain("Bearer the-new-one");
    expect((await storedRow(created.body.id)).secrets).not.toContain("keep-me-please");
  });

  it("refuses the redacted value where no secret is stored to keep", async () => {
    const { call } = await org();
    const header = await call("POST", "/api/v1/monitors", { name: "h", type: "http", config: { url: url(), headers: { Authorization: REDACTED } } });
    expect(header.status).toBe(400);
    expect(header.body.code).toBe("VALIDATION_ERROR");
    expect(header.body.details.issues[0].path).toBe("body.config.headers.Authorization");
    const password = await call("POST", "/api/v1/monitors", { name: "h", type: "http", config: { url: url(), auth: { type: "basic", username: "u", password: REDACTED } } });
    expect(password.status).toBe(400);
    expect(password.body.details.issues[0].path).toBe("body.config.auth.password");
  });

  it("refuses a password in the URL, where it would be shown in clear, and points to auth", async () => {
    const { call } = await org();
    const withPassword = url().replace("://", "://user:url-password-secret@");
    for (const [type, extra] of [["http", {}], ["keyword", { keyword: "ok" }], ["browser_lite", {}]] as const) {
      const res = await call("POST", "/api/v1/monitors", { name: "u", type, config: { url: withPassword, ...extra } });
      expect(res.status).toBe(400);
      expect(res.body.details.issues[0].path).toBe("body.config.url");
      expect(JSON.stringify(res.body)).not.toContain("url-password-secret");
    }
    // One stored before they were refused is shown without them.
    const old = await call("POST", "/api/v1/monitors", { name: "old", type: "http", config: { url: url() } });
    await api.sql`update monitors set config = ${api.sql.json({ url: withPassword } as never)} where id = ${old.body.id}`;
    expect((await call("GET", `/api/v1/monitors/${old.body.id}`)).body.config.url).toBe(url().replace("://", `://${REDACTED}@`));
    expect((await call("PATCH", `/api/v1/monitors/${old.body.id}`, { name: "renamed" })).status).toBe(200);
  });

  it("redacts secret headers of browser monitors and Authorization set by a flow step", async () => {
    const { call } = await org();
    const lite = await call("POST", "/api/v1/monitors", { name: "l", type: "browser_lite", config: { url: url(), headers: { Authorization: "Basic lite-secret-1" } } });
    expect(lite.status).toBe(201);
    expect(lite.body.config.headers.Authorization).toBe(REDACTED);
    const flow = await call("POST", "/api/v1/monitors", {
      name: "f",
      type: "browser_flow",
      config: {
        url: url(),
        headers: { "X-Session-Token": "flow-secret-2" },
        steps: [
          { action: "set_header", header: "Authorization", value: "Bearer flow-secret-3" },
          { action: "set_cookie", cookie: "session", value: "flow-secret-4" },
          { action: "fill", selector: "#password", value: "flow-secret-5", secret: true },
          { action: "fill", selector: "#user", value: "visible-user" },
        ],
      },
    });
    expect(flow.status).toBe(201);
    expect(flow.body.config.headers["X-Session-Token"]).toBe(REDACTED);
    expect(flow.body.config.steps.map((s: { value: string }) => s.value)).toEqual([REDACTED, REDACTED, REDACTED, "visible-user"]);
    for (const m of [lite.body, flow.body]) {
      const row = await storedRow(m.id);
      expect(JSON.stringify(m) + row.config).not.toContain("-secret-");
    }
  });

  it("keeps a secret flow value with its own step when steps are inserted before it", async () => {
    const { call } = await org();
    const created = await call("POST", "/api/v1/monitors", {
      name: "f",
      type: "browser_flow",
      config: { url: url(), steps: [{ action: "fill", selector: "#password", value: "pw-stays-with-password", secret: true }] },
    });
    expect(created.status).toBe(201);
    const steps = [{ action: "set_header", header: "X-Debug", value: REDACTED, secret: true }, ...created.body.config.steps];
    // The placeholder of the new first step has nothing stored for it: refused rather than given the password.
    expect((await call("PATCH", `/api/v1/monitors/${created.body.id}`, { config: { ...created.body.config, steps } })).status).toBe(400);
    const moved = [{ action: "set_header", header: "X-Debug", value: "debug-on" }, ...created.body.config.steps];
    expect((await call("PATCH", `/api/v1/monitors/${created.body.id}`, { config: { ...created.body.config, steps: moved } })).status).toBe(200);
    const [row] = await api.sql<{ secrets_enc: string }[]>`select secrets_enc from monitors where id = ${created.body.id}`;
    expect(JSON.parse(api.server.deps.box.decrypt(row!.secrets_enc)).step_values).toEqual({ 1: "pw-stays-with-password" });
  });

  it("seals headers stored in plaintext before this release, once, and redacts them meanwhile", async () => {
    const { call } = await org();
    const created = await call("POST", "/api/v1/monitors", { name: "old", type: "http", config: { url: url() } });
    // A row as an older release wrote it: the header in the clear in config, no secrets.
    await api.sql`update monitors set config = ${api.sql.json({ url: url(), headers: { Authorization: "Bearer legacy-plain" } } as never)}, secrets_enc = null where id = ${created.body.id}`;
    const read = await call("GET", `/api/v1/monitors/${created.body.id}`);
    expect(read.body.config.headers.Authorization).toBe(REDACTED);
    const { sealPlaintextMonitorSecrets } = await import("../../domain/monitors/seal-plaintext.ts");
    expect(await sealPlaintextMonitorSecrets(api.sql, api.server.deps.box)).toBeGreaterThanOrEqual(1);
    expect(await sealPlaintextMonitorSecrets(api.sql, api.server.deps.box)).toBe(0);
    const row = await storedRow(created.body.id);
    expect(row.config).not.toContain("legacy-plain");
    expect(row.secrets).toContain("legacy-plain");
    await call("POST", `/api/v1/monitors/${created.body.id}/run`);
    expect(seen[0]!.get("authorization")).toBe("Bearer legacy-plain");
  });

  it("puts no monitor or channel secret in the audit log or the data export", async () => {
    const { call } = await signUp(api.url);
    const created = await call("POST", "/api/v1/monitors", {
      name: "a",
      type: "http",
      config: { url: url(), headers: { Authorization: "Bearer audit-secret-1" }, auth: { type: "basic", username: "u", password: "audit-secret-2" } },
    });
    expect(created.status).toBe(201);
    await call("PATCH", `/api/v1/monitors/${created.body.id}`, { config: { ...created.body.config, headers: { Authorization: "Bearer audit-secret-3" } } });
    const channel = await call("POST", "/api/v1/alert-channels", { name: "hook", type: "webhook", config: { url: `${url()}?token=audit-secret-4`, secret: "audit-secret-5-long-enough" } });
    expect(channel.status).toBe(201);
    const audit = await call("GET", "/api/v1/audit-log");
    expect(audit.status).toBe(200);
    expect(audit.body.data.length).toBeGreaterThan(0);
    expect(JSON.stringify(audit.body)).not.toContain("audit-secret");
    const exported = await call("GET", "/api/v1/user/export");
    expect(exported.status).toBe(200);
    expect(JSON.stringify(exported.body)).not.toContain("audit-secret");
  });
});
