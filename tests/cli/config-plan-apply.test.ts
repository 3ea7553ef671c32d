import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import YAML from "yaml";
import { client, makeOrg, startTestApi, type TestApi } from "../support/api.ts";
import { cliHome, runCli } from "./support/run-cli.ts";

let api: TestApi;
const home = cliHome();

beforeAll(async () => {
  api = await startTestApi();
}, 60_000);
afterAll(async () => {
  await api.stop();
}, 60_000);

const SECRET = "s3cret-pa55word-never-printed";
const TOKEN = "tok-0123456789-never-printed";

async function org() {
  const o = await makeOrg(api.sql, "business");
  const dir = join(home.dir, o.org_id);
  mkdirSync(dir, { recursive: true });
  const env = { WATCHPOST_URL: api.url, WATCHPOST_API_KEY: o.api_key, SHOP_PASSWORD: SECRET, SHOP_TOKEN: TOKEN };
  const cli = (args: string[], extra: Record<string, string | undefined> = {}) => runCli(args, { env: { ...env, ...extra }, cwd: dir, configHome: home.configHome });
  const write = (doc: unknown, name = "watchpost.yaml") => writeFileSync(join(dir, name), typeof doc === "string" ? doc : YAML.stringify(doc));
  return { ...o, dir, env, cli, write, call: client(api.url, { key: o.api_key }) };
}

// biome-ignore lint/suspicious/noExplicitAny: the tests edit entries freely, as a user edits the file
const baseFile = (): { version: number; monitors: any[] } => ({
  version: 1,
  monitors: [
    {
      key: "shop",
      name: "Shop",
      type: "http",
      config: { url: "https://shop.example/health", headers: { "X-Api-Token": "${SHOP_TOKEN}", Accept: "text/html" }, auth: { type: "basic", username: "ops", password: "${SHOP_PASSWORD}" } },
      interval_seconds: 60,
      tags: ["prod"],
    },
    { key: "db", name: "Database port", type: "tcp", config: { host: "db.example", port: 5432 }, interval_seconds: 120 },
    { key: "nightly", name: "Nightly job", type: "heartbeat", config: { period_seconds: 86_400 } },
    { key: "www-dns", name: "www resolves", type: "dns", config: { name: "www.example.com", record_type: "A" }, timeout_ms: 5000 },
  ],
});

describe("watchpost plan / apply", () => {
  it("creates every monitor, then plans and applies nothing; secrets are never printed", async () => {
    const o = await org();
    o.write(baseFile());
    const plan = await o.cli(["plan", "--detailed-exitcode"]);
    expect(plan.code).toBe(3);
    expect(plan.stdout).toContain("+ create monitor shop");
    expect(plan.stdout).toContain("Plan: 4 to create, 0 to update, 0 to delete, 0 unchanged.");
    const apply = await o.cli(["apply", "--json"]);
    expect(apply.code).toBe(0);
    expect(apply.json().applied.map((a: { action: string; key: string }) => `${a.action} ${a.key}`).sort()).toEqual(["create db", "create nightly", "create shop", "create www-dns"]);

    // Stored with the key tag, the secrets resolved from the environment (the API masks them).
    const { body } = await o.call("GET", "/api/v1/monitors?limit=100");
    const shop = body.data.find((m: { name: string }) => m.name === "Shop");
    expect(shop.tags.sort()).toEqual(["prod", "wp-key:shop"]);
    expect(shop.config.auth).toEqual({ type: "basic", username: "ops", password: "••••••••" });

    const again = await o.cli(["plan", "--detailed-exitcode", "--json"]);
    expect(again.code).toBe(0);
    expect(again.json().summary).toEqual({ create: 0, update: 0, delete: 0, unchanged: 4 });
    const second = await o.cli(["apply"]);
    expect(second.code).toBe(0);
    expect(second.stdout).toContain("No changes");
    const after = (await o.call("GET", "/api/v1/monitors?limit=100")).body.data;
    expect(after.map((m: { updated_at: string }) => m.updated_at).sort()).toEqual(body.data.map((m: { updated_at: string }) => m.updated_at).sort());

    for (const out of [plan, apply, again, second]) {
      expect(out.stdout + out.stderr).not.toContain(SECRET);
      expect(out.stdout + out.stderr).not.toContain(TOKEN);
    }
  }, 60_000);

  it("a changed field plans exactly that change, a rename is an update (same id), and a rotated secret needs --resend-secrets", async () => {
    const o = await org();
    o.write(baseFile());
    expect((await o.cli(["apply"])).code).toBe(0);
    const before = (await o.call("GET", "/api/v1/monitors?tag=wp-key:shop")).body.data[0];
    const file = baseFile();
    file.monitors[0]!.interval_seconds = 300;
    file.monitors[0]!.name = "Shop front";
    o.write(file);
    const plan = await o.cli(["plan", "--json"]);
    expect(plan.json().changes).toEqual([
      {
        kind: "monitor",
        action: "update",
        key: "shop",
        id: before.id,
        name: "Shop",
        changes: [
          { path: "name", before: "Shop", after: "Shop front" },
          { path: "interval_seconds", before: 60, after: 300 },
        ],
      },
    ]);
    const human = await o.cli(["plan"]);
    expect(human.stdout).toContain("~ update monitor shop");
    expect(human.stdout).toContain('interval_seconds: 60 → 300');
    expect((await o.cli(["apply"])).code).toBe(0);
    const after = (await o.call("GET", `/api/v1/monitors/${before.id}`)).body;
    expect(after).toMatchObject({ name: "Shop front", interval_seconds: 300 });

    // A config change inside a nested object: one path.
    file.monitors[0]!.config.headers.Accept = "application/json";
    o.write(file);
    const nested = await o.cli(["plan", "--json"]);
    expect(nested.json().changes[0].changes).toEqual([{ path: "config.headers.Accept", before: "text/html", after: "application/json" }]);
    expect((await o.cli(["apply"])).code).toBe(0);
    // A setting removed from the file is removed from the monitor (the type's default applies again).
    delete file.monitors[0].config.headers.Accept;
    file.monitors[0].config.follow_redirects = true;
    o.write(file);
    expect((await o.cli(["plan", "--json"])).json().changes[0].changes).toEqual([{ path: "config.headers.Accept", before: "application/json" }]);
    expect((await o.cli(["apply"])).code).toBe(0);
    expect((await o.call("GET", `/api/v1/monitors/${before.id}`)).body.config.headers).toEqual({ "X-Api-Token": "••••••••" });
    expect((await o.cli(["plan", "--detailed-exitcode"])).code).toBe(0);

    // Secrets: the API never shows them, so a new value is invisible to plan until --resend-secrets.
    const rotated = await o.cli(["plan", "--detailed-exitcode"], { SHOP_PASSWORD: "rotated-value" });
    expect(rotated.code).toBe(0);
    const resend = await o.cli(["plan", "--resend-secrets", "--json"], { SHOP_PASSWORD: "rotated-value" });
    expect(resend.json().changes[0].changes).toEqual([
      { path: "config.headers.X-Api-Token", before: "(secret)", after: "(secret)" },
      { path: "config.auth.password", before: "(secret)", after: "(secret)" },
    ]);
    const applied = await o.cli(["apply", "--resend-secrets"], { SHOP_PASSWORD: "rotated-value" });
    expect(applied.code).toBe(0);
    expect(applied.stdout + applied.stderr).not.toContain("rotated-value");
    // A missing variable on update keeps the stored secret (•••••••• is sent back).
    const kept = await o.cli(["apply", "--resend-secrets"], { SHOP_PASSWORD: undefined });
    expect(kept.code).toBe(0);
  }, 60_000);

  it("leaves monitors the file does not name alone; --prune deletes only the ones the CLI manages", async () => {
    const o = await org();
    o.write(baseFile());
    expect((await o.cli(["apply"])).code).toBe(0);
    const manual = await o.call("POST", "/api/v1/monitors", { name: "Made by hand", type: "http", config: { url: "https://hand.example" } });
    const file = baseFile();
    file.monitors = file.monitors.filter((m: { key: string }) => m.key !== "db");
    o.write(file);
    const plan = await o.cli(["plan", "--json"]);
    expect(plan.json().summary).toEqual({ create: 0, update: 0, delete: 0, unchanged: 3 });
    // The one made by hand counts; the one this file made and no longer names is listed by key.
    expect(plan.json().unmanaged).toBe(1);
    expect(plan.json().left_alone.map((l: { kind: string; key: string }) => `${l.kind} ${l.key}`)).toEqual(["monitor db"]);
    const prune = await o.cli(["plan", "--prune", "--json"]);
    expect(prune.json().changes.map((c: { action: string; key: string }) => `${c.action} ${c.key}`)).toEqual(["delete db"]);
    expect((await o.cli(["apply", "--prune"])).code).toBe(0);
    const names = (await o.call("GET", "/api/v1/monitors?limit=100")).body.data.map((m: { name: string }) => m.name).sort();
    expect(names).toEqual(["Made by hand", "Nightly job", "Shop", "www resolves"]);
    expect((await o.call("GET", `/api/v1/monitors/${manual.body.id}`)).status).toBe(200);
  }, 60_000);

  it("reports a partial failure: what was applied, what failed with the API's reason, what was not tried", async () => {
    const o = await org();
    o.write(baseFile());
    expect((await o.cli(["apply"])).code).toBe(0);
    const file = baseFile();
    file.monitors[1]!.config = { host: "db.example", port: 5433 };
    // Valid for the file's schema, refused by the API (the timeout must not exceed the interval).
    (file.monitors[2] as Record<string, unknown>).timeout_ms = 120_000;
    (file.monitors[2] as Record<string, unknown>).interval_seconds = 60;
    file.monitors[3]!.timeout_ms = 6000;
    o.write(file);
    const r = await o.cli(["apply", "--json"]);
    expect(r.code).toBe(1);
    const report = r.json();
    expect(report.applied.map((a: { key: string }) => a.key)).toEqual(["db"]);
    expect(report.failed).toHaveLength(1);
    expect(report.failed[0]).toMatchObject({ key: "nightly", code: "VALIDATION_ERROR" });
    expect(report.skipped.map((s: { key: string }) => s.key)).toEqual(["www-dns"]);
    const human = await o.cli(["apply"]);
    expect(human.stdout).toContain("✗ update monitor nightly failed");
    expect(human.stdout).toContain("not attempted");
  }, 60_000);

  it("names the entry the API refused in a bulk creation (all or none): the others are reported not attempted", async () => {
    const o = await org();
    const file = baseFile();
    file.monitors[2] = { ...file.monitors[2], regions: ["eu-west"] };
    o.write(file);
    const r = await o.cli(["apply", "--json"]);
    expect(r.code).toBe(1);
    const report = r.json();
    expect(report.applied).toEqual([]);
    expect(report.failed.map((f: { key: string }) => f.key)).toEqual(["nightly"]);
    expect(report.failed[0].details.issues[0].path).toStartWith("body.monitors[2]");
    expect(report.skipped.map((s: { key: string }) => s.key).sort()).toEqual(["db", "shop", "www-dns"]);
    expect((await o.call("GET", "/api/v1/monitors")).body.data).toEqual([]);
  }, 60_000);

  it("refuses an invalid file with every problem and its path (validate works offline)", async () => {
    const o = await org();
    o.write({ version: 1, monitors: [{ key: "Bad Key", name: "x", type: "http", config: {} }, { key: "a", name: "y", type: "nope", config: {} }, { key: "b", name: "z", type: "tcp", config: { host: "h", port: 1 } }, { key: "b", name: "w", type: "tcp", config: { host: "h", port: 2 } }] });
    const v = await runCli(["validate", "--json"], { cwd: o.dir, configHome: home.configHome });
    expect(v.code).toBe(1);
    const paths = JSON.parse(v.stderr).details.issues.map((i: { path: string }) => i.path);
    expect(paths).toContain("monitors[0].key");
    expect(paths).toContain("monitors[0].config.url");
    expect(paths).toContain("monitors[1].type");
    expect(paths).toContain("monitors[3].key");
    expect((await o.cli(["plan"])).code).toBe(1);
    o.write(baseFile());
    expect((await runCli(["validate"], { cwd: o.dir, configHome: home.configHome })).stdout).toContain("watchpost.yaml is valid.");
    o.write("version: 1\nmonitors: [\n");
    expect((await o.cli(["validate"])).code).toBe(1);
  }, 60_000);
});

describe("alert channels in the file", () => {
  const SLACK = "https://hooks.slack.com/services/T000/B000/first-secret-path";
  const PD = "R0UTINGKEY0123456789abcdefABCDEF";
  const channelEnv = { SLACK_URL: SLACK, PD_KEY: PD, HOOK_SECRET: "whsec-0123456789abcdef-secret" };
  const withChannels = () => ({
    ...baseFile(),
    channels: [
      { key: "ops-slack", name: "Ops Slack", type: "slack", config: { url: "${SLACK_URL}" } },
      { key: "pager", name: "PagerDuty", type: "pagerduty", config: { routing_key: "${PD_KEY}", severity: "error" } },
      { key: "ops-mail", name: "Ops mail", type: "email", config: { to: ["ops@example.com"] } },
      { key: "hook", name: "Hook", type: "webhook", config: { url: "https://hooks.example.com/in", secret: "${HOOK_SECRET}" }, enabled: false },
    ],
  });

  it("creates channels with their key, plans no changes after, and compares secrets through the API's mask without printing them", async () => {
    const o = await org();
    o.write(withChannels());
    const plan = await o.cli(["plan"], channelEnv);
    expect(plan.stdout).toContain("+ create channel ops-slack");
    expect(plan.stdout).toContain('"url":"(secret)"');
    expect((await o.cli(["apply"], channelEnv)).code).toBe(0);
    const stored = (await o.call("GET", "/api/v1/alert-channels?limit=100")).body.data;
    expect(stored.map((c: { key: string }) => c.key).sort()).toEqual(["hook", "ops-mail", "ops-slack", "pager"]);
    expect(stored.find((c: { key: string }) => c.key === "hook").enabled).toBe(false);
    expect((await o.cli(["plan", "--detailed-exitcode"], channelEnv)).code).toBe(0);

    // A new secret value shows as a change of that field (its mask differs), never as the value.
    const rotated = await o.cli(["plan", "--json"], { ...channelEnv, SLACK_URL: "https://hooks.slack.com/services/T000/B000/second-secret" });
    expect(rotated.json().changes).toEqual([{ kind: "channel", action: "update", key: "ops-slack", id: expect.any(String), name: "Ops Slack", changes: [{ path: "config.url", before: "(secret)", after: "(secret)" }] }]);
    const applied = await o.cli(["apply"], { ...channelEnv, SLACK_URL: "https://hooks.slack.com/services/T000/B000/second-secret" });
    expect(applied.code).toBe(0);
    expect((await o.call("GET", "/api/v1/alert-channels?limit=100")).body.data.find((c: { key: string }) => c.key === "ops-slack").config.url).toEndWith("cret");
    // An unset variable keeps the stored secret: no change planned, and an update sends the mask back.
    expect((await o.cli(["plan", "--detailed-exitcode"], { ...channelEnv, SLACK_URL: undefined })).code).toBe(0);

    // A rename is an update of the same channel; a plain field shows its values.
    const file = withChannels();
    file.channels[1]!.name = "Paging";
    file.channels[1]!.config.severity = "critical";
    o.write(file);
    const renamed = await o.cli(["plan", "--json"], { ...channelEnv, SLACK_URL: "https://hooks.slack.com/services/T000/B000/second-secret" });
    expect(renamed.json().changes).toHaveLength(1);
    expect(renamed.json().changes[0].changes).toEqual([
      { path: "name", before: "PagerDuty", after: "Paging" },
      { path: "config.severity", before: "error", after: "critical" },
    ]);
    for (const out of [plan, rotated, applied, renamed]) for (const secret of [SLACK, PD, "second-secret", channelEnv.HOOK_SECRET]) expect(out.stdout + out.stderr).not.toContain(secret);
  }, 60_000);

  it("prunes only channels the file made, and exports channels with secret references that plan back to no changes", async () => {
    const o = await org();
    o.write(withChannels());
    expect((await o.cli(["apply"], channelEnv)).code).toBe(0);
    const manual = await o.call("POST", "/api/v1/alert-channels", { name: "By hand", type: "email", config: { to: "hand@example.com" } });
    const file = withChannels();
    file.channels = file.channels.filter((c) => c.key !== "pager");
    o.write(file);
    expect((await o.cli(["plan", "--json"], channelEnv)).json().summary.delete).toBe(0);
    const prune = await o.cli(["plan", "--prune", "--json"], channelEnv);
    expect(prune.json().changes.map((c: { kind: string; action: string; key: string }) => `${c.action} ${c.kind} ${c.key}`)).toEqual(["delete channel pager"]);
    expect((await o.cli(["apply", "--prune"], channelEnv)).code).toBe(0);
    const keys = (await o.call("GET", "/api/v1/alert-channels?limit=100")).body.data.map((c: { key: string | null; id: string }) => c.key ?? c.id).sort();
    expect(keys).toEqual([manual.body.id, "hook", "ops-mail", "ops-slack"].sort());

    const exported = await o.cli(["export"], channelEnv);
    const doc = YAML.parse(exported.stdout);
    expect(doc.channels.map((c: { key: string }) => c.key)).toEqual(["by-hand", "hook", "ops-mail", "ops-slack"]);
    expect(doc.channels.find((c: { key: string }) => c.key === "ops-slack").config).toEqual({ url: "${WATCHPOST_CHANNEL_OPS_SLACK_URL}" });
    expect(exported.stdout).not.toContain("••••");
    expect(exported.stderr).toContain("WATCHPOST_CHANNEL_HOOK_SECRET");
    writeFileSync(join(o.dir, "exported.yaml"), exported.stdout);
    expect((await o.cli(["plan", "-f", "exported.yaml", "--detailed-exitcode"])).code).toBe(0);
  }, 60_000);
});

describe("alert rules in the file", () => {
  const env = { SLACK_URL: "https://hooks.slack.com/services/T000/B000/rules-secret-path" };
  // biome-ignore lint/suspicious/noExplicitAny: the tests edit entries freely, as a user edits the file
  const withRules = (): { version: number; monitors: any[]; channels: any[]; rules: any[]; escalation_policies?: any[] } => ({
    ...baseFile(),
    channels: [
      { key: "ops-slack", name: "Ops Slack", type: "slack", config: { url: "${SLACK_URL}" } },
      { key: "ops-mail", name: "Ops mail", type: "email", config: { to: "ops@example.com" } },
    ],
    rules: [
      { key: "shop-down", name: "Shop down", scope: { monitor: "shop" }, condition: { type: "status_change", to: ["down", "timeout"] }, confirmation: { consecutive_failures: 3 }, channels: [{ channel: "ops-slack" }, { channel: "ops-mail", delay_minutes: 15 }] },
      { key: "prod-slow", name: "Prod slow", scope: { tag: "prod" }, condition: { type: "metric_threshold", metric: "response_time", operator: "gte", threshold: 2000 }, channels: [{ channel: "ops-mail" }] },
      { key: "anything-down", name: "Anything down", scope: { all_monitors: true }, condition: { type: "status_change", to: ["down"] }, notifications: { on_recovery: false }, channels: [{ channel: "ops-slack" }] },
    ],
  });

  it("creates rules naming monitors and channels by key (made in the same apply), then plans no changes; one change plans exactly that", async () => {
    const o = await org();
    o.write(withRules());
    const plan = await o.cli(["plan", "--json"], env);
    expect(plan.json().changes.map((c: { kind: string; action: string; key: string }) => `${c.action} ${c.kind} ${c.key}`)).toEqual([
      "create channel ops-slack", "create channel ops-mail", "create monitor shop", "create monitor db", "create monitor nightly", "create monitor www-dns", "create rule shop-down", "create rule prod-slow", "create rule anything-down",
    ]);
    const apply = await o.cli(["apply"], env);
    expect(apply.code).toBe(0);
    const rules = (await o.call("GET", "/api/v1/alert-rules?limit=100")).body.data;
    const shop = (await o.call("GET", "/api/v1/monitors?tag=wp-key:shop")).body.data[0];
    const channels = (await o.call("GET", "/api/v1/alert-channels?limit=100")).body.data;
    const slackId = channels.find((c: { key: string }) => c.key === "ops-slack").id;
    const mailId = channels.find((c: { key: string }) => c.key === "ops-mail").id;
    expect(rules.find((r: { key: string }) => r.key === "shop-down")).toMatchObject({
      scope: { type: "monitor", monitor_id: shop.id },
      confirmation: { consecutive_failures: 3 },
      channels: [{ channel_id: slackId, delay_minutes: 0 }, { channel_id: mailId, delay_minutes: 15 }],
    });
    expect(rules.find((r: { key: string }) => r.key === "prod-slow").scope).toEqual({ type: "monitor_group", tag: "prod" });
    expect((await o.cli(["plan", "--detailed-exitcode"], env)).code).toBe(0);

    const file = withRules();
    file.rules[0].confirmation.consecutive_failures = 5;
    o.write(file);
    expect((await o.cli(["plan", "--json"], env)).json().changes).toEqual([
      { kind: "rule", action: "update", key: "shop-down", id: expect.any(String), name: "Shop down", changes: [{ path: "confirmation.consecutive_failures", before: 3, after: 5 }] },
    ]);
    expect((await o.cli(["apply"], env)).code).toBe(0);
    expect((await o.cli(["plan", "--detailed-exitcode"], env)).code).toBe(0);

    // Pruning a rule deletes it before anything it names; export gives the rules back with keys.
    file.rules = file.rules.filter((r: { key: string }) => r.key !== "anything-down");
    o.write(file);
    const prune = await o.cli(["plan", "--prune", "--json"], env);
    expect(prune.json().changes.map((c: { kind: string; action: string; key: string }) => `${c.action} ${c.kind} ${c.key}`)).toEqual(["delete rule anything-down"]);
    expect((await o.cli(["apply", "--prune"], env)).code).toBe(0);
    const exported = await o.cli(["export"], env);
    const doc = YAML.parse(exported.stdout);
    expect(doc.rules).toEqual([
      { key: "prod-slow", name: "Prod slow", scope: { tag: "prod" }, condition: { type: "metric_threshold", metric: "response_time", operator: "gte", threshold: 2000 }, channels: [{ channel: "ops-mail" }] },
      { key: "shop-down", name: "Shop down", scope: { monitor: "shop" }, condition: { type: "status_change", to: ["down", "timeout"] }, confirmation: { consecutive_failures: 5 }, channels: [{ channel: "ops-slack" }, { channel: "ops-mail", delay_minutes: 15 }] },
    ]);
    writeFileSync(join(o.dir, "exported.yaml"), exported.stdout);
    expect((await o.cli(["plan", "-f", "exported.yaml", "--detailed-exitcode"])).code).toBe(0);
  }, 60_000);

  it("manages escalation policies by key, and rules that notify through one", async () => {
    const o = await org();
    const file = withRules();
    file.escalation_policies = [
      { key: "on-call", name: "On call", steps: [{ delay_minutes: 0, channels: ["ops-slack"] }, { delay_minutes: 30, channels: ["ops-mail", "ops-slack"] }] },
    ];
    file.rules[2] = { key: "anything-down", name: "Anything down", scope: { all_monitors: true }, condition: { type: "status_change", to: ["down"] }, escalation_policy: "on-call" };
    o.write(file);
    const plan = await o.cli(["plan", "--json"], env);
    expect(plan.json().changes.slice(0, 3).map((c: { kind: string; key: string }) => `${c.kind} ${c.key}`)).toEqual(["channel ops-slack", "channel ops-mail", "escalation_policy on-call"]);
    expect((await o.cli(["apply"], env)).code).toBe(0);
    const policy = (await o.call("GET", "/api/v1/escalation-policies")).body.data[0];
    expect(policy).toMatchObject({ key: "on-call", name: "On call" });
    expect(policy.steps[1].channel_ids).toHaveLength(2);
    expect((await o.call("GET", "/api/v1/alert-rules?limit=100")).body.data.find((r: { key: string }) => r.key === "anything-down").escalation_policy_id).toBe(policy.id);
    expect((await o.cli(["plan", "--detailed-exitcode"], env)).code).toBe(0);

    file.escalation_policies![0].steps[1].delay_minutes = 45;
    o.write(file);
    const changed = await o.cli(["plan", "--json"], env);
    expect(changed.json().changes.map((c: { kind: string; key: string; changes: { path: string }[] }) => `${c.kind} ${c.key} ${c.changes.map((f) => f.path)}`)).toEqual(["escalation_policy on-call steps"]);
    expect((await o.cli(["apply"], env)).code).toBe(0);

    const exported = await o.cli(["export"], env);
    const doc = YAML.parse(exported.stdout);
    expect(doc.escalation_policies).toEqual([{ key: "on-call", name: "On call", steps: [{ delay_minutes: 0, channels: ["ops-slack"] }, { delay_minutes: 45, channels: ["ops-mail", "ops-slack"] }] }]);
    expect(doc.rules.find((r: { key: string }) => r.key === "anything-down")).toEqual({ key: "anything-down", name: "Anything down", scope: { all_monitors: true }, condition: { type: "status_change", to: ["down"] }, escalation_policy: "on-call" });
    writeFileSync(join(o.dir, "exported.yaml"), exported.stdout);
    expect((await o.cli(["plan", "-f", "exported.yaml", "--detailed-exitcode"], env)).code).toBe(0);

    // Pruning the policy and the rule on it: the rule goes first (the API refuses to delete a policy in use).
    file.escalation_policies = [];
    file.rules = file.rules.slice(0, 2);
    o.write(file);
    const prune = await o.cli(["plan", "--prune", "--json"], env);
    expect(prune.json().changes.map((c: { kind: string; action: string; key: string }) => `${c.action} ${c.kind} ${c.key}`)).toEqual(["delete rule anything-down", "delete escalation_policy on-call"]);
    expect((await o.cli(["apply", "--prune"], env)).code).toBe(0);
    expect((await o.call("GET", "/api/v1/escalation-policies")).body.data).toEqual([]);
  }, 60_000);

  it("refuses a rule naming a monitor or channel key that exists nowhere, before changing anything", async () => {
    const o = await org();
    const file = withRules();
    file.rules[0].scope = { monitor: "nope" };
    file.rules[1].channels = [{ channel: "ghost" }];
    o.write(file);
    const r = await o.cli(["apply", "--json"], env);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stderr).details.issues.map((i: { path: string }) => i.path)).toEqual(["rules[0].scope.monitor", "rules[1].channels[0].channel"]);
    expect((await o.call("GET", "/api/v1/monitors")).body.data).toEqual([]);
  });
});

describe("status pages in the file", () => {
  // biome-ignore lint/suspicious/noExplicitAny: the tests edit entries freely, as a user edits the file
  const withPage = (slug: string): { version: number; monitors: any[]; status_pages: any[] } => ({
    ...baseFile(),
    status_pages: [
      {
        slug,
        name: "Acme status",
        description: "Our services",
        theme_id: "dark",
        sections: [
          { name: "Website", components: [{ monitor: "shop", display_name: "Shop" }, { tag: "prod", display_name: "Production", description: "Everything tagged prod" }] },
          { name: "Infrastructure", components: [{ monitor: "db", display_name: "Database" }] },
        ],
      },
    ],
  });

  it("creates a page with its layout by monitor key, plans no changes after, keeps component ids on a change, and exports it", async () => {
    const o = await org();
    const slug = `acme-${o.org_id.slice(-8).toLowerCase()}`;
    o.write(withPage(slug));
    const plan = await o.cli(["plan", "--json"]);
    expect(plan.json().changes.map((c: { kind: string; action: string }) => `${c.action} ${c.kind}`).at(-1)).toBe("create status_page");
    expect((await o.cli(["apply"])).code).toBe(0);
    const page = (await o.call("GET", "/api/v1/status-pages?limit=100")).body.data.find((p: { slug: string }) => p.slug === slug);
    expect(page).toMatchObject({ name: "Acme status", description: "Our services", theme_id: "dark" });
    const layout = (await o.call("GET", `/api/v1/status-pages/${page.id}/layout`)).body;
    const shop = (await o.call("GET", "/api/v1/monitors?tag=wp-key:shop")).body.data[0];
    expect(layout.sections.map((s: { name: string }) => s.name)).toEqual(["Website", "Infrastructure"]);
    expect(layout.sections[0].components[0]).toMatchObject({ monitor_id: shop.id, display_name: "Shop" });
    expect(layout.sections[0].components[1]).toMatchObject({ monitor_id: null, tag: "prod", description: "Everything tagged prod" });
    expect((await o.cli(["plan", "--detailed-exitcode"])).code).toBe(0);

    const file = withPage(slug);
    file.status_pages[0].sections[0].components[0].display_name = "Web shop";
    o.write(file);
    const changed = await o.cli(["plan", "--json"]);
    expect(changed.json().changes).toHaveLength(1);
    expect(changed.json().changes[0].changes.map((c: { path: string }) => c.path)).toEqual(["sections[0].components[0].display_name"]);
    expect((await o.cli(["apply"])).code).toBe(0);
    const after = (await o.call("GET", `/api/v1/status-pages/${page.id}/layout`)).body;
    expect(after.sections[0].components[0]).toMatchObject({ id: layout.sections[0].components[0].id, display_name: "Web shop" });
    expect(after.sections[1].id).toBe(layout.sections[1].id);
    expect((await o.cli(["plan", "--detailed-exitcode"])).code).toBe(0);

    const exported = await o.cli(["export"]);
    expect(YAML.parse(exported.stdout).status_pages).toEqual([
      {
        slug,
        name: "Acme status",
        description: "Our services",
        theme_id: "dark",
        sections: [
          { name: "Website", components: [{ monitor: "shop", display_name: "Web shop" }, { tag: "prod", display_name: "Production", description: "Everything tagged prod" }] },
          { name: "Infrastructure", components: [{ monitor: "db", display_name: "Database" }] },
        ],
      },
    ]);
    writeFileSync(join(o.dir, "exported.yaml"), exported.stdout);
    expect((await o.cli(["plan", "-f", "exported.yaml", "--detailed-exitcode"])).code).toBe(0);
  }, 60_000);
});

describe("maintenance windows in the file", () => {
  const start = "2030-01-05T02:00:00.000Z";
  // biome-ignore lint/suspicious/noExplicitAny: the tests edit entries freely, as a user edits the file
  const withWindows = (): { version: number; monitors: any[]; maintenance: any[] } => ({
    ...baseFile(),
    maintenance: [
      { key: "db-upgrade", name: "DB upgrade", starts_at: "2030-01-05T02:00:00Z", ends_at: "2030-01-05T04:00:00Z", monitors: ["db"], pause_monitors: true },
      { key: "sunday-deploys", name: "Sunday deploys", rrule: "FREQ=WEEKLY;BYDAY=SU;BYHOUR=2;BYMINUTE=0", duration_minutes: 60, timezone: "Europe/Berlin", tags: ["prod"] },
    ],
  });

  it("creates windows covering monitors by key, plans no changes after, updates one field, prunes keyed ones, and exports them", async () => {
    const o = await org();
    o.write(withWindows());
    expect((await o.cli(["apply"])).code).toBe(0);
    const stored = (await o.call("GET", "/api/v1/maintenance-windows?limit=100")).body.data;
    const db = (await o.call("GET", "/api/v1/monitors?tag=wp-key:db")).body.data[0];
    expect(stored.find((w: { key: string }) => w.key === "db-upgrade")).toMatchObject({ starts_at: start, monitor_ids: [db.id], pause_monitors: true, suppress_alerts: true });
    expect(stored.find((w: { key: string }) => w.key === "sunday-deploys")).toMatchObject({ kind: "rrule", duration_minutes: 60, timezone: "Europe/Berlin", tags: ["prod"] });
    expect((await o.cli(["plan", "--detailed-exitcode"])).code).toBe(0);

    const file = withWindows();
    file.maintenance[1].duration_minutes = 90;
    o.write(file);
    expect((await o.cli(["plan", "--json"])).json().changes).toEqual([
      { kind: "maintenance", action: "update", key: "sunday-deploys", id: expect.any(String), name: "Sunday deploys", changes: [{ path: "duration_minutes", before: 60, after: 90 }] },
    ]);
    expect((await o.cli(["apply"])).code).toBe(0);

    const exported = await o.cli(["export"]);
    expect(YAML.parse(exported.stdout).maintenance).toEqual([
      { key: "db-upgrade", name: "DB upgrade", starts_at: start, ends_at: "2030-01-05T04:00:00.000Z", monitors: ["db"], pause_monitors: true },
      { key: "sunday-deploys", name: "Sunday deploys", starts_at: expect.any(String), rrule: "FREQ=WEEKLY;BYDAY=SU;BYHOUR=2;BYMINUTE=0", duration_minutes: 90, timezone: "Europe/Berlin", tags: ["prod"] },
    ]);
    writeFileSync(join(o.dir, "exported.yaml"), exported.stdout);
    expect((await o.cli(["plan", "-f", "exported.yaml", "--detailed-exitcode"])).code).toBe(0);

    file.maintenance = file.maintenance.slice(1);
    o.write(file);
    const prune = await o.cli(["plan", "--prune", "--json"]);
    expect(prune.json().changes.map((c: { kind: string; action: string; key: string }) => `${c.action} ${c.kind} ${c.key}`)).toEqual(["delete maintenance db-upgrade"]);
    expect((await o.cli(["apply", "--prune"])).code).toBe(0);
    expect((await o.call("GET", "/api/v1/maintenance-windows?limit=100")).body.data.map((w: { key: string }) => w.key)).toEqual(["sunday-deploys"]);
  }, 60_000);
});

describe("watchpost.config.ts", () => {
  it("plans and applies the typed form (defineConfig) exactly like the YAML file", async () => {
    const o = await org();
    const defineConfig = new URL("../../cli/watchpost/define-config.ts", import.meta.url).pathname;
    writeFileSync(
      join(o.dir, "watchpost.config.ts"),
      `import { defineConfig } from ${JSON.stringify(defineConfig)};\nexport default defineConfig(${JSON.stringify(baseFile(), null, 2)});\n`,
    );
    const plan = await o.cli(["plan", "--json"]);
    expect(plan.code).toBe(0);
    expect(plan.json().summary).toEqual({ create: 4, update: 0, delete: 0, unchanged: 0 });
    expect((await o.cli(["apply"])).code).toBe(0);
    o.write(baseFile());
    expect((await o.cli(["plan", "-f", "watchpost.yaml", "--detailed-exitcode"])).code).toBe(0);
    writeFileSync(join(o.dir, "broken.config.ts"), "export const nothing = 1;\n");
    const broken = await o.cli(["validate", "-f", "broken.config.ts"]);
    expect(broken.code).toBe(1);
    expect(broken.stderr).toContain("no default export");
  }, 60_000);
});

describe("watchpost export", () => {
  it("exports the organisation so that plan shows no changes, and apply on another organisation reproduces it", async () => {
    const a = await org();
    a.write(baseFile());
    expect((await a.cli(["apply"])).code).toBe(0);
    // Monitors made elsewhere export too, keyed by their names.
    await a.call("POST", "/api/v1/monitors", { name: "Made by hand", type: "keyword", config: { url: "https://hand.example", keyword: "ok" }, tags: ["team-a"], paused: true });
    const exported = await a.cli(["export", "-o", "exported.yaml"]);
    expect(exported.code).toBe(0);
    expect(exported.stdout).toContain("Wrote 5 monitors");
    expect(exported.stdout).toContain("WATCHPOST_SHOP_AUTH_PASSWORD");
    const text = readFileSync(join(a.dir, "exported.yaml"), "utf8");
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain("••••");
    expect(text).toContain("${WATCHPOST_SHOP_AUTH_PASSWORD}");
    expect((await runCli(["validate", "-f", "exported.yaml"], { cwd: a.dir, configHome: home.configHome })).code).toBe(0);
    const plan = await a.cli(["plan", "-f", "exported.yaml", "--detailed-exitcode"]);
    expect(plan.stdout).toContain("No changes");
    expect(plan.code).toBe(0);

    const b = await org();
    writeFileSync(join(b.dir, "watchpost.yaml"), text);
    const secrets = { WATCHPOST_SHOP_AUTH_PASSWORD: SECRET, WATCHPOST_SHOP_HEADERS_X_API_TOKEN: TOKEN };
    const missing = await b.cli(["apply"]);
    expect(missing.code).toBe(1);
    expect(missing.stdout + missing.stderr).toContain("WATCHPOST_SHOP_AUTH_PASSWORD");
    expect((await b.cli(["apply"], secrets)).code).toBe(0);
    expect((await b.cli(["plan", "--detailed-exitcode"], secrets)).code).toBe(0);
    const again = await b.cli(["export"]);
    expect(again.stdout).toBe(text);
    const json = await b.cli(["export", "--format", "json"]);
    expect(JSON.parse(json.stdout).monitors).toEqual(YAML.parse(text).monitors);
  }, 60_000);
});

describe("project: one organisation, several repositories", () => {
  const serviceFile = (project: string | undefined, keys: string[]) => ({
    version: 1,
    ...(project ? { project } : {}),
    monitors: keys.map((k) => ({ key: k, name: `${project ?? "org"} ${k}`, type: "tcp", config: { host: `${k}.example`, port: 443 } })),
  });

  it("two files with different projects applied with --prune to one organisation keep each other's monitors", async () => {
    const o = await org();
    o.write(serviceFile("shop", ["api", "web"]), "shop.yaml");
    o.write(serviceFile("billing", ["api", "worker"]), "billing.yaml");
    expect((await o.cli(["apply", "--prune", "-f", "shop.yaml"])).code).toBe(0);
    const billing = await o.cli(["apply", "--prune", "-f", "billing.yaml", "--json"]);
    expect(billing.code).toBe(0);
    expect(billing.json().applied.map((a: { action: string; key: string }) => `${a.action} ${a.key}`).sort()).toEqual(["create billing/api", "create billing/worker"]);
    const shopAgain = await o.cli(["plan", "--prune", "-f", "shop.yaml", "--json"]);
    expect(shopAgain.json().summary).toEqual({ create: 0, update: 0, delete: 0, unchanged: 2 });
    const tags = (await o.call("GET", "/api/v1/monitors?limit=100")).body.data.flatMap((m: { tags: string[] }) => m.tags).sort();
    expect(tags).toEqual(["wp-key:billing/api", "wp-key:billing/worker", "wp-key:shop/api", "wp-key:shop/web"]);

    // A monitor removed from one file is pruned from that project only.
    o.write(serviceFile("shop", ["api"]), "shop.yaml");
    const prune = await o.cli(["apply", "--prune", "-f", "shop.yaml", "--json"]);
    expect(prune.json().applied.map((a: { action: string; key: string }) => `${a.action} ${a.key}`)).toEqual(["delete shop/web"]);
    const left = (await o.call("GET", "/api/v1/monitors?limit=100")).body.data.flatMap((m: { tags: string[] }) => m.tags).sort();
    expect(left).toEqual(["wp-key:billing/api", "wp-key:billing/worker", "wp-key:shop/api"]);
    // A file without a project prunes neither project.
    o.write(serviceFile(undefined, ["solo"]), "org.yaml");
    const plain = await o.cli(["plan", "--prune", "-f", "org.yaml", "--json"]);
    expect(plain.json().changes.map((c: { action: string; key: string }) => `${c.action} ${c.key}`)).toEqual(["create solo"]);
  }, 60_000);

  it("adding project to a file applied without one adopts its items (key rewritten, same ids) instead of creating new ones", async () => {
    const o = await org();
    const file = {
      ...serviceFile(undefined, ["api", "web"]),
      channels: [{ key: "ops-mail", name: "Ops mail", type: "email", config: { to: ["ops@example.com"] } }],
      rules: [{ key: "api-down", name: "API down", scope: { monitor: "api" }, condition: { type: "status_change", to: ["down"] }, channels: [{ channel: "ops-mail" }] }],
    };
    o.write(file);
    expect((await o.cli(["apply"])).code).toBe(0);
    const before = (await o.call("GET", "/api/v1/monitors?limit=100")).body.data.map((m: { id: string }) => m.id).sort();
    o.write({ ...file, project: "shop" });
    const plan = await o.cli(["plan", "--prune", "--json"]);
    expect(plan.code).toBe(0);
    const changes = plan.json().changes;
    expect(changes.map((c: { action: string; kind: string; key: string }) => `${c.action} ${c.kind} ${c.key}`).sort()).toEqual([
      "update channel shop/ops-mail",
      "update monitor shop/api",
      "update monitor shop/web",
      "update rule shop/api-down",
    ]);
    expect(changes.find((c: { key: string }) => c.key === "shop/api").changes).toEqual([{ path: "key", before: "api", after: "shop/api" }]);
    expect((await o.cli(["plan"])).stdout).toContain('key: "api" → "shop/api"');
    expect((await o.cli(["apply", "--prune"])).code).toBe(0);
    const monitors = (await o.call("GET", "/api/v1/monitors?limit=100")).body.data;
    expect(monitors.map((m: { id: string }) => m.id).sort()).toEqual(before);
    expect(monitors.flatMap((m: { tags: string[] }) => m.tags).sort()).toEqual(["wp-key:shop/api", "wp-key:shop/web"]);
    expect((await o.call("GET", "/api/v1/alert-channels?limit=100")).body.data.map((c: { key: string }) => c.key)).toEqual(["shop/ops-mail"]);
    expect((await o.call("GET", "/api/v1/alert-rules?limit=100")).body.data.map((r: { key: string }) => r.key)).toEqual(["shop/api-down"]);
    expect((await o.cli(["plan", "--prune", "--detailed-exitcode"])).code).toBe(0);
  }, 60_000);

  it("export --project writes that project's items without the prefix (plans back to no changes); export without it leaves projects out; the longest key fits", async () => {
    const o = await org();
    const long = { project: "p".repeat(24), key: `k${"x".repeat(56)}` };
    o.write(serviceFile("shop", ["api", "web"]), "shop.yaml");
    o.write({ ...serviceFile(long.project, []), monitors: [{ key: long.key, name: "Long", type: "tcp", config: { host: "long.example", port: 443 } }] }, "long.yaml");
    o.write(serviceFile(undefined, ["solo"]), "org.yaml");
    for (const f of ["shop.yaml", "long.yaml", "org.yaml"]) expect((await o.cli(["apply", "--prune", "-f", f])).code).toBe(0);
    expect((await o.call("GET", `/api/v1/monitors?tag=${encodeURIComponent(`wp-key:${long.project}/${long.key}`)}`)).body.data).toHaveLength(1);

    const shop = await o.cli(["export", "--project", "shop", "-o", "exported.yaml"]);
    expect(shop.code).toBe(0);
    const exported = YAML.parse(readFileSync(join(o.dir, "exported.yaml"), "utf8"));
    expect(exported.project).toBe("shop");
    expect(exported.monitors.map((m: { key: string }) => m.key)).toEqual(["api", "web"]);
    expect((await o.cli(["plan", "--prune", "-f", "exported.yaml", "--detailed-exitcode"])).code).toBe(0);

    const all = await o.cli(["export"]);
    expect(YAML.parse(all.stdout).monitors.map((m: { key: string }) => m.key)).toEqual(["solo"]);
    expect(all.stderr).toContain("Left out: 2 items of project shop: export them with --project shop.");
    expect((await o.cli(["export", "--project", "Shop"])).code).toBe(2);
  }, 60_000);
});
