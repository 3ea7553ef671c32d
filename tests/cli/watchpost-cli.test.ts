import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { existsSync, statSync } from "node:fs";
import { join } from "node:path";
import { RuleCache } from "../../alerting/runtime/rule-cache.ts";
import { evaluateResults } from "../../alerting/runtime/evaluate.ts";
import { result } from "../../alerting/testing/fixtures.ts";
import { silentLogger } from "../../core/log.ts";
import { publishLiveEvent } from "../../domain/events/publish-live-event.ts";
import { client, makeOrg, startTestApi, type TestApi } from "../support/api.ts";
import { cliHome, runCli } from "./support/run-cli.ts";

let api: TestApi;
let target: ReturnType<typeof Bun.serve>;
const home = cliHome();

beforeAll(async () => {
  api = await startTestApi({ ALLOW_PRIVATE_IPS: "true" });
  target = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("hello shop") });
}, 60_000);
afterAll(async () => {
  target.stop(true);
  await api.stop();
}, 60_000);

/** A fresh organisation and the environment that points the CLI at it. */
async function org(plan = "business") {
  const o = await makeOrg(api.sql, plan);
  return { ...o, env: { WATCHPOST_URL: api.url, WATCHPOST_API_KEY: o.api_key }, call: client(api.url, { key: o.api_key }) };
}
const cli = (args: string[], env: Record<string, string | undefined> = {}, extra: { stdin?: string; configHome?: string } = {}) => runCli(args, { env, stdin: extra.stdin, configHome: extra.configHome ?? home.configHome });

describe("watchpost login", () => {
  it("stores the URL and key in $XDG_CONFIG_HOME/watchpost/config.json, mode 0600, and later commands use it", async () => {
    const o = await org();
    const configHome = join(home.dir, "login-key");
    const login = await cli(["login", "--url", api.url, "--api-key-stdin"], {}, { stdin: `${o.api_key}\n`, configHome });
    expect(login.code).toBe(0);
    const path = join(configHome, "watchpost", "config.json");
    expect(login.stdout).toContain(path);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(statSync(join(configHome, "watchpost")).mode & 0o777).toBe(0o700);
    expect(await Bun.file(path).json()).toEqual({ url: api.url, api_key: o.api_key });
    await o.call("POST", "/api/v1/monitors", { name: "Stored login", type: "http", config: { url: "https://shop.example" } });
    const list = await cli(["monitors", "list", "--json"], {}, { configHome });
    expect(list.code).toBe(0);
    expect(list.json().data.map((m: { name: string }) => m.name)).toEqual(["Stored login"]);
    // WATCHPOST_URL / WATCHPOST_API_KEY take precedence over the file.
    const other = await org();
    const viaEnv = await cli(["monitors", "list", "--json"], other.env, { configHome });
    expect(viaEnv.json().data).toEqual([]);
  });

  it("signs in with e-mail and password and stores a new API key; a wrong key or password stores nothing", async () => {
    const o = await org();
    const configHome = join(home.dir, "login-password");
    const bad = await cli(["login", "--url", api.url, "--api-key", "wp_live_nope"], {}, { configHome });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("UNAUTHENTICATED");
    expect(existsSync(join(configHome, "watchpost", "config.json"))).toBe(false);
    const wrong = await cli(["login", "--url", api.url, "--email", o.email, "--json"], { WATCHPOST_PASSWORD: "not the password" }, { configHome });
    expect(wrong.code).toBe(1);
    expect(JSON.parse(wrong.stderr)).toMatchObject({ code: "UNAUTHENTICATED" });
    const ok = await cli(["login", "--url", api.url, "--email", o.email, "--password-stdin", "--json"], {}, { stdin: o.password, configHome });
    expect(ok.code).toBe(0);
    expect(ok.json()).toMatchObject({ url: api.url, org: { id: o.org_id } });
    const stored = await Bun.file(join(configHome, "watchpost", "config.json")).json();
    expect(stored.api_key).not.toBe(o.api_key);
    expect((await cli(["status", "--json"], {}, { configHome })).json().org.id).toBe(o.org_id);
    // Not logged in at all: a clear error, exit 1.
    const none = await cli(["monitors", "list"], {}, { configHome: join(home.dir, "nobody") });
    expect(none.code).toBe(1);
    expect(none.stderr).toContain("watchpost login");
  });
});

describe("usage, help and exit codes", () => {
  const commands = [[], ["login"], ["monitors"], ["monitors", "list"], ["monitors", "get"], ["monitors", "create"], ["monitors", "pause"], ["monitors", "resume"], ["monitors", "delete"], ["monitors", "run"], ["results"], ["results", "tail"], ["status"], ["alerts"], ["alerts", "list"], ["alerts", "ack"], ["validate"], ["plan"], ["apply"], ["export"], ["schema"], ["import"], ["import", "kuma"]];
  it("answers --help for every command with exit 0", async () => {
    for (const c of commands) {
      const r = await cli([...c, "--help"]);
      expect(r.code).toBe(0);
      expect(r.stdout).toContain(`Usage: watchpost${c.length ? ` ${c.join(" ")}` : ""}`);
    }
  }, 60_000);

  it("exits 2 on an unknown command, an unknown option, a missing argument or a bad option value", async () => {
    const env = { WATCHPOST_URL: api.url, WATCHPOST_API_KEY: "wp_unused" };
    for (const args of [["frobnicate"], ["monitors", "list", "--bogus"], ["monitors", "get"], ["monitors", "create", "--name", "x", "--type", "http", "--interval", "5"], ["monitors", "create", "--name", "x", "--type", "http", "--config", "[1]"], ["monitors"], ["plan", "-f", "/nonexistent/watchpost.yaml"]]) {
      const r = await cli(args, env);
      expect({ args, code: r.code }).toEqual({ args, code: 2 });
    }
  }, 60_000);

  it("gives a usage error as the error body on stderr with --json, as every other error", async () => {
    for (const args of [["plan", "--json", "--bogus"], ["--json", "frobnicate"], ["monitors", "get", "--json"]]) {
      const r = await cli(args);
      expect({ args, code: r.code }).toEqual({ args, code: 2 });
      const body = JSON.parse(r.stderr);
      expect(body).toMatchObject({ code: "USAGE", details: {} });
      expect(body.error).not.toStartWith("error:");
      expect(body.error.length).toBeGreaterThan(5);
    }
  }, 60_000);
});

describe("watchpost monitors", () => {
  it("creates, lists, shows, runs, pauses, resumes and deletes, as tables and as JSON", async () => {
    const o = await org();
    const url = `http://127.0.0.1:${target.port}/`;
    const created = await cli(["monitors", "create", "--name", "Shop", "--type", "keyword", "--config", `{"url":"${url}","keyword":"shop"}`, "--interval", "60", "--tag", "prod", "--json"], o.env);
    expect(created.code).toBe(0);
    const m = created.json();
    expect(m).toMatchObject({ name: "Shop", type: "keyword", interval_seconds: 60, tags: ["prod"], config: { url, keyword: "shop" } });

    const table = await cli(["monitors", "list"], o.env);
    expect(table.stdout.split("\n")[0]).toMatch(/^ID\s+NAME\s+TYPE\s+STATUS\s+INTERVAL\s+LAST CHECK\s+TARGET$/);
    expect(table.stdout).toContain(m.id);
    expect(table.stdout).not.toContain("\u001b[");
    const filtered = await cli(["monitors", "list", "--tag", "nope", "--json"], o.env);
    expect(filtered.json()).toEqual({ data: [] });

    for (const ref of [m.id, "Shop"]) expect((await cli(["monitors", "get", ref, "--json"], o.env)).json().id).toBe(m.id);
    const detail = await cli(["monitors", "get", "Shop"], o.env);
    expect(detail.stdout).toMatch(/name\s+Shop/);

    const ran = await cli(["monitors", "run", "Shop", "--json"], o.env);
    expect(ran.code).toBe(0);
    expect(ran.json()).toMatchObject({ status: "up", recorded: true });
    expect((await cli(["monitors", "run", "Shop"], o.env)).stdout).toMatch(/^Shop: up in \d+ ms from /);

    expect((await cli(["monitors", "pause", m.id, "--json"], o.env)).json().paused).toBe(true);
    expect((await cli(["monitors", "list"], o.env)).stdout).toMatch(/Shop\s+keyword\s+paused/);
    expect((await cli(["monitors", "resume", m.id, "--json"], o.env)).json().paused).toBe(false);

    const deleted = await cli(["monitors", "delete", "Shop", "--json"], o.env);
    expect(deleted.json()).toEqual({ id: m.id, deleted: true });
    const gone = await cli(["monitors", "get", m.id, "--json"], o.env);
    expect(gone.code).toBe(1);
    expect(JSON.parse(gone.stderr)).toMatchObject({ code: "NOT_FOUND", error: expect.any(String), details: expect.any(Object) });
  }, 60_000);

  it("passes the API's validation errors through with their paths, exit 1", async () => {
    const o = await org();
    const r = await cli(["monitors", "create", "--name", "Bad", "--type", "http", "--config", '{"url":"ftp://x"}'], o.env);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("VALIDATION_ERROR");
    expect(r.stderr).toContain("body.config.url");
    const j = await cli(["monitors", "create", "--name", "Bad", "--type", "http", "--config", '{"url":"ftp://x"}', "--json"], o.env);
    expect(JSON.parse(j.stderr).details.issues[0].path).toBe("body.config.url");
  });

  it("colours only when asked (FORCE_COLOR) and never with NO_COLOR", async () => {
    const o = await org();
    await o.call("POST", "/api/v1/monitors", { name: "Colour", type: "http", config: { url: "https://shop.example" } });
    const coloured = await cli(["monitors", "list"], { ...o.env, NO_COLOR: undefined, FORCE_COLOR: "1" });
    expect(coloured.stdout).toContain("\u001b[");
    const plain = await cli(["monitors", "list"], { ...o.env, NO_COLOR: "1", FORCE_COLOR: "1" });
    expect(plain.stdout).not.toContain("\u001b[");
    const json = await cli(["monitors", "list", "--json"], { ...o.env, NO_COLOR: undefined, FORCE_COLOR: "1" });
    expect(json.stdout).not.toContain("\u001b[");
  });
});

describe("watchpost status, alerts and results", () => {
  const firing = async () => {
    const o = await org();
    const ch = await o.call("POST", "/api/v1/alert-channels", { name: "hook", type: "webhook", config: { url: "http://127.0.0.1:9/x" } });
    const mon = await o.call("POST", "/api/v1/monitors", { name: "Checkout", type: "http", config: { url: "https://shop.example" } });
    await o.call("POST", "/api/v1/monitors", { name: "Blog", type: "http", config: { url: "https://blog.example" } });
    const rule = await o.call("POST", "/api/v1/alert-rules", { name: "Checkout down", scope: { type: "all_monitors" }, condition: { type: "status_change", to: ["down"] }, channels: [{ channel_id: ch.body.id }] });
    await evaluateResults({ sql: api.sql, rules: new RuleCache(api.sql, silentLogger), publicBaseUrl: "http://x" }, [result(o.org_id, mon.body.id, "down", { location: mon.body.regions[0] })]);
    return { ...o, monitorId: mon.body.id as string, ruleId: rule.body.id as string, region: mon.body.regions[0] as string };
  };

  it("status summarises monitors by status and firing alerts", async () => {
    const o = await firing();
    const s = await cli(["status", "--json"], o.env);
    expect(s.code).toBe(0);
    expect(s.json()).toMatchObject({ org: { id: o.org_id }, monitors: { total: 2, pending: 2, up: 0, down: 0, paused: 0 }, alerts: { firing: 1, unacknowledged: 1 } });
    expect(s.json().alerts.data[0]).toMatchObject({ rule_id: o.ruleId, monitor_name: "Checkout", region: o.region, acknowledged: false });
    const human = await cli(["status"], o.env);
    expect(human.stdout).toContain("2 monitors");
    expect(human.stdout).toContain("Alerts firing: 1 (1 unacknowledged)");
  });

  it("alerts list shows what fires; ack acknowledges it", async () => {
    const o = await firing();
    const list = await cli(["alerts", "list", "--json"], o.env);
    expect(list.json().data).toHaveLength(1);
    expect(list.json().data[0]).toMatchObject({ rule_id: o.ruleId, monitor_id: o.monitorId, acknowledged: false });
    expect((await cli(["alerts", "list"], o.env)).stdout).toMatch(new RegExp(`Checkout down\\s+Checkout\\s+${o.region}\\s+firing`));
    const ack = await cli(["alerts", "ack", o.ruleId, "--monitor", "Checkout", "--json"], o.env);
    expect(ack.code).toBe(0);
    expect(ack.json()).toEqual({ acknowledged: [{ region: o.region, already: false }] });
    expect((await cli(["alerts", "list", "--unacknowledged", "--json"], o.env)).json().data).toEqual([]);
    expect((await cli(["alerts", "ack", "rule_nope", "--monitor", o.monitorId], o.env)).code).toBe(1);
  });

  it("results tail prints recent results, then follows the live stream for that monitor only", async () => {
    const o = await org();
    const mon = await o.call("POST", "/api/v1/monitors", { name: "Tailed", type: "http", config: { url: `http://127.0.0.1:${target.port}/` } });
    const other = await o.call("POST", "/api/v1/monitors", { name: "Other", type: "http", config: { url: `http://127.0.0.1:${target.port}/` } });
    await o.call("POST", `/api/v1/monitors/${mon.body.id}/run`);
    const past = await cli(["results", "tail", "Tailed", "--no-follow", "--json"], o.env);
    expect(past.code).toBe(0);
    const lines = past.stdout.trim().split("\n").map((l) => JSON.parse(l));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ monitor_id: mon.body.id, status: "up" });

    const p = Bun.spawn(["bun", "cli/watchpost/main.ts", "results", "tail", mon.body.id, "-n", "0", "--json"], { env: { PATH: process.env.PATH ?? "", HOME: home.configHome, ...o.env }, stdout: "pipe", stderr: "pipe" });
    try {
      let text = "";
      const collecting = (async () => {
        for await (const chunk of p.stdout) text += new TextDecoder().decode(chunk);
      })();
      // Publish until the stream is connected and the line arrives.
      const live = { id: "chk_live1", monitor_id: mon.body.id, location: "eu-west", status: "down", duration_ms: 42, error: "connection refused", checked_at: new Date().toISOString(), data: {} };
      const deadline = Date.now() + 15_000;
      while (!text.includes("chk_live1") && Date.now() < deadline) {
        publishLiveEvent(api.bus, o.org_id, "check.result", { ...live, id: "chk_other", monitor_id: other.body.id });
        publishLiveEvent(api.bus, o.org_id, "check.result", live);
        await Bun.sleep(300);
      }
      void collecting;
      const first = JSON.parse(text.trim().split("\n")[0]!);
      expect(first).toEqual({ id: "chk_live1", monitor_id: mon.body.id, status: "down", duration_ms: 42, location: "eu-west", checked_at: live.checked_at, error: "connection refused" });
      expect(text).not.toContain("chk_other");
    } finally {
      p.kill();
      await p.exited;
    }
  }, 30_000);
});
