import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { Database } from "bun:sqlite";
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import Ajv from "ajv";
import YAML from "yaml";
import { makeOrg, startTestApi, type TestApi } from "../support/api.ts";
import { cliHome, runCli } from "./support/run-cli.ts";

const FIXTURE = new URL("./fixtures/kuma-backup-1.23.json", import.meta.url).pathname;
const home = cliHome();
let api: TestApi;

beforeAll(async () => {
  api = await startTestApi();
}, 60_000);
afterAll(async () => {
  await api.stop();
}, 60_000);

const dirFor = (name: string) => {
  const dir = join(home.dir, name);
  mkdirSync(dir, { recursive: true });
  return dir;
};

/** Kuma's SQLite tables (the columns the importer reads), filled from the JSON backup's monitors and notifications. */
function kumaDatabase(path: string) {
  const backup = JSON.parse(readFileSync(FIXTURE, "utf8"));
  const db = new Database(path, { create: true });
  db.run(`create table monitor (id integer primary key, name text, active boolean, user_id integer, interval integer, url text, type text, weight integer,
    hostname text, port integer, keyword text, maxretries integer, ignore_tls boolean, upside_down boolean, maxredirects integer,
    accepted_statuscodes_json text, dns_resolve_type text, dns_resolve_server text, retry_interval integer, push_token text, method text, body text,
    headers text, basic_auth_user text, basic_auth_pass text, docker_container text, expiry_notification boolean, parent integer, invert_keyword boolean,
    json_path text, expected_value text, packet_size integer, timeout double, auth_method text, database_connection_string text)`);
  db.run("create table tag (id integer primary key, name text, color text)");
  db.run("create table monitor_tag (id integer primary key, monitor_id integer, tag_id integer, value text)");
  db.run("create table notification (id integer primary key, name text, config text, active boolean, user_id integer, is_default boolean)");
  db.run("create table monitor_notification (id integer primary key, monitor_id integer, notification_id integer)");
  const tagIds = new Map<string, number>();
  for (const m of backup.monitorList) {
    db.query(`insert into monitor values (?, ?, ?, 1, ?, ?, ?, 2000, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`).run(
      m.id, m.name, m.active ? 1 : 0, m.interval, m.url, m.type, m.hostname, m.port, m.keyword, m.maxretries, m.ignoreTls ? 1 : 0, m.upsideDown ? 1 : 0, m.maxredirects,
      JSON.stringify(m.accepted_statuscodes), m.dns_resolve_type, m.dns_resolve_server, m.retryInterval, m.pushToken, m.method, m.body, m.headers, m.basic_auth_user,
      m.basic_auth_pass, m.docker_container, m.expiryNotification ? 1 : 0, m.parent, m.invertKeyword ? 1 : 0, m.jsonPath, m.expectedValue, m.packetSize, m.timeout,
      m.authMethod, m.databaseConnectionString,
    );
    for (const t of m.tags) {
      if (!tagIds.has(t.name)) tagIds.set(t.name, Number((db.query("insert into tag (name, color) values (?, ?) returning id").get(t.name, t.color) as { id: number }).id));
      db.query("insert into monitor_tag (monitor_id, tag_id, value) values (?, ?, ?)").run(m.id, tagIds.get(t.name)!, t.value);
    }
    for (const id of Object.keys(m.notificationIDList)) db.query("insert into monitor_notification (monitor_id, notification_id) values (?, ?)").run(m.id, Number(id));
  }
  for (const n of backup.notificationList) db.query("insert into notification (id, name, config, active, user_id, is_default) values (?, ?, ?, 1, 1, 0)").run(n.id, n.name, n.config);
  db.close();
}

describe("watchpost import kuma", () => {
  it("converts a Kuma backup into a valid config file and reports every monitor and notification it could not convert, with the reason", async () => {
    const dir = dirFor("json");
    const r = await runCli(["import", "kuma", FIXTURE, "--json"], { cwd: dir, configHome: home.configHome });
    expect(r.code).toBe(0);
    const report = r.json();
    const backup = JSON.parse(readFileSync(FIXTURE, "utf8"));
    // Never dropped silently: each Kuma monitor is converted or listed with its reason.
    const accounted = new Set([...report.converted.map((c: { kuma_id: number }) => c.kuma_id), ...report.skipped.map((s: { kuma_id: number }) => s.kuma_id)]);
    expect(accounted.size).toBe(backup.monitorList.length);
    expect(report.channels.length + report.notifications.length).toBe(backup.notificationList.length);
    const byName = Object.fromEntries(report.converted.map((c: { name: string; type: string }) => [c.name, c.type]));
    expect(byName).toMatchObject({ "Shop homepage": "http", "Shop homepage (certificate)": "ssl", "Status page text": "keyword", "API version": "keyword", "Postgres port": "tcp", "Gateway ping": "ping", "Mail MX": "dns", "Nightly backup": "heartbeat", "Checkout in a browser": "browser_lite" });
    const reasons = Object.fromEntries(report.skipped.map((s: { name: string; reason: string }) => [s.name, s.reason]));
    expect(Object.keys(reasons).sort()).toEqual(["Game server", "Maintenance inverted", "Orders database", "Production", "Queue depth", "Reverse DNS", "Traefik container"]);
    expect(reasons["Reverse DNS"]).toContain("PTR");
    expect(reasons["Traefik container"]).toContain("Docker");
    expect(reasons["Maintenance inverted"]).toContain("upside-down");
    // Notifications become channels where a channel type fits; the rest are listed with the reason.
    expect(Object.fromEntries(report.channels.map((c: { kuma_type: string; type: string }) => [c.kuma_type, c.type]))).toEqual({ smtp: "email", slack: "slack", discord: "discord", telegram: "telegram", teams: "teams", webhook: "webhook", PagerDuty: "pagerduty", Opsgenie: "opsgenie" });
    const kinds = Object.fromEntries(report.notifications.map((n: { kuma_type: string; reason: string }) => [n.kuma_type, n.reason]));
    expect(Object.keys(kinds)).toEqual(["gotify"]);
    expect(kinds.gotify).toContain("no Watchpost channel");
    expect(report.secret_refs.sort()).toEqual([
      "KUMA_ADMIN_BASIC_AUTH_PASSWORD",
      "KUMA_CHANNEL_DISCORD_URL",
      "KUMA_CHANNEL_INCIDENT_WEBHOOK_URL",
      "KUMA_CHANNEL_OPSGENIE_API_KEY",
      "KUMA_CHANNEL_PAGERDUTY_ROUTING_KEY",
      "KUMA_CHANNEL_SLACK_ALERTS_URL",
      "KUMA_CHANNEL_TEAMS_URL",
      "KUMA_CHANNEL_TELEGRAM_ON_CALL_BOT_TOKEN",
      "KUMA_SHOP_API_HEALTH_HEADER_AUTHORIZATION",
    ]);
    // A monitor's notifications (after its retries) became a rule; one that went to an unconverted kind says so.
    expect(report.rules).toEqual([
      { kuma_id: 2, key: "shop-homepage-down", monitor: "shop-homepage", channels: ["ops-e-mail", "slack-alerts"] },
      { kuma_id: 13, key: "redis-port-down", monitor: "redis-port", channels: ["pagerduty"] },
    ]);
    expect(report.converted.find((c: { key: string }) => c.key === "api-version").notes).toContain("Kuma notification 9 not converted (see below): not in its rule");

    const text = readFileSync(join(dir, "watchpost.yaml"), "utf8");
    // Kuma's secrets never reach the file.
    for (const secret of ["hunter2-kuma", "abc.def.ghi", "Xk2pLq9sTz", "mysql://", "R0UTINGKEY", "mailpass"]) expect(text).not.toContain(secret);
    const file = YAML.parse(text);
    expect(file.rules.find((r: { key: string }) => r.key === "redis-port-down")).toEqual({
      key: "redis-port-down",
      name: "Redis port down",
      scope: { monitor: "redis-port" },
      condition: { type: "status_change", to: ["down", "timeout"] },
      confirmation: { consecutive_failures: 4 },
      channels: [{ channel: "pagerduty" }],
    });
    expect(file.channels.find((c: { key: string }) => c.key === "ops-e-mail")).toEqual({ key: "ops-e-mail", name: "Ops e-mail", type: "email", config: { to: "ops@example.com" } });
    expect(file.channels.find((c: { key: string }) => c.key === "telegram-on-call").config).toEqual({ bot_token: "${KUMA_CHANNEL_TELEGRAM_ON_CALL_BOT_TOKEN}", chat_id: "-100200" });
    const admin = file.monitors.find((m: { key: string }) => m.key === "admin-basic-auth");
    expect(admin.config).toEqual({ url: "https://admin.example.com/", expected_status: ["200-299"], follow_redirects: false, tls_verify: false, auth: { type: "basic", username: "ops", password: "${KUMA_ADMIN_BASIC_AUTH_PASSWORD}" } });
    expect(file.monitors.find((m: { key: string }) => m.key === "no-error-banner")).toMatchObject({ paused: true, config: { keyword: "Internal Server Error", mode: "absent", case_sensitive: true } });
    expect(file.monitors.find((m: { key: string }) => m.key === "shop-homepage").tags).toEqual(["env:prod", "team:web", "Production"]);
    expect(file.monitors.find((m: { key: string }) => m.key === "nightly-backup")).toEqual({ key: "nightly-backup", name: "Nightly backup", type: "heartbeat", config: { period_seconds: 86_400, grace_seconds: 3600 } });
    expect((await runCli(["validate"], { cwd: dir, configHome: home.configHome })).code).toBe(0);
    // Editors and other tools validate it with the published JSON Schema too.
    const published = new Ajv({ strict: false, allErrors: true }).compile(JSON.parse(readFileSync(new URL("../../docs/watchpost-config.schema.json", import.meta.url), "utf8")));
    expect(published(file)).toBe(true);
    expect(published({ ...file, monitors: [{ ...file.monitors[0], config: { url: 5 } }] })).toBe(false);

    const human = await runCli(["import", "kuma", FIXTURE, "-o", "again.yaml"], { cwd: dir, configHome: home.configHome });
    expect(human.stdout).toContain("Not imported (7):");
    expect(human.stdout).toContain("✗ Reverse DNS (dns): DNS record type PTR is not supported");
    // It never overwrites a file unless told to.
    expect((await runCli(["import", "kuma", FIXTURE], { cwd: dir, configHome: home.configHome })).code).toBe(2);
  });

  it("the imported file applies to a real organisation and then plans with no changes", async () => {
    const dir = dirFor("apply");
    expect((await runCli(["import", "kuma", FIXTURE], { cwd: dir, configHome: home.configHome })).code).toBe(0);
    // Kuma allows 20-second intervals (Edge router ping): the unlimited plan does too.
    const o = await makeOrg(api.sql, "unlimited");
    const env = {
      WATCHPOST_URL: api.url,
      WATCHPOST_API_KEY: o.api_key,
      KUMA_ADMIN_BASIC_AUTH_PASSWORD: "pw",
      KUMA_SHOP_API_HEALTH_HEADER_AUTHORIZATION: "Bearer t",
      // The values copied from Kuma's notification settings.
      KUMA_CHANNEL_DISCORD_URL: "https://discord.com/api/webhooks/1/abc",
      KUMA_CHANNEL_INCIDENT_WEBHOOK_URL: "https://hooks.example.com/kuma",
      KUMA_CHANNEL_OPSGENIE_API_KEY: "og-key-0123456789",
      KUMA_CHANNEL_PAGERDUTY_ROUTING_KEY: "R0UTINGKEY0123456789abcdefABCDEF",
      KUMA_CHANNEL_SLACK_ALERTS_URL: "https://hooks.slack.com/services/T000/B000/XXXX",
      KUMA_CHANNEL_TEAMS_URL: "https://example.webhook.office.com/x",
      KUMA_CHANNEL_TELEGRAM_ON_CALL_BOT_TOKEN: "123:ABCDEFGHIJKLMNOPQRSTUVWXYZ",
    };
    const apply = await runCli(["apply", "--json"], { cwd: dir, env, configHome: home.configHome });
    expect(apply.code).toBe(0);
    // 19 monitors, 8 channels, 2 rules.
    expect(apply.json().applied).toHaveLength(19 + 8 + 2);
    const plan = await runCli(["plan", "--detailed-exitcode"], { cwd: dir, env, configHome: home.configHome });
    expect(plan.stdout).toContain("No changes");
    expect(plan.code).toBe(0);
  }, 60_000);

  it("reads Kuma's SQLite database read-only and converts it the same way as the JSON backup", async () => {
    const dir = dirFor("sqlite");
    const dbPath = join(dir, "kuma.db");
    kumaDatabase(dbPath);
    const before = readFileSync(dbPath);
    const fromDb = await runCli(["import", "kuma", dbPath, "-o", "from-db.yaml", "--json"], { cwd: dir, configHome: home.configHome });
    expect(fromDb.code).toBe(0);
    expect((await runCli(["import", "kuma", FIXTURE, "-o", "from-json.yaml"], { cwd: dir, configHome: home.configHome })).code).toBe(0);
    expect(readFileSync(join(dir, "from-db.yaml"), "utf8")).toBe(readFileSync(join(dir, "from-json.yaml"), "utf8"));
    expect(fromDb.json().channels).toHaveLength(8);
    expect(fromDb.json().notifications).toHaveLength(1);
    expect(readFileSync(dbPath).equals(before)).toBe(true);
    const bad = await runCli(["import", "kuma", join(dir, "from-db.yaml"), "-o", "x.yaml"], { cwd: dir, configHome: home.configHome });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("neither a Kuma JSON backup nor a Kuma SQLite database");
  });
});
