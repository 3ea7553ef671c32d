import { describe, expect, it } from "bun:test";
import type { Monitor } from "../monitor-ref.ts";
import type { ApiClient } from "../client.ts";
import { applyPlan } from "./apply.ts";
import type { Channel } from "./channels.ts";
import type { Policy } from "./escalation.ts";
import { exportState } from "./export.ts";
import { type DesiredState, validateConfig } from "./load.ts";
import type { Window } from "./maintenance.ts";
import { computePlan } from "./plan.ts";
import { inScope, withProject } from "./project.ts";
import { renderPlan } from "./render-plan.ts";
import type { Rule } from "./rules.ts";

let n = 0;
const id = (prefix: string) => `${prefix}_${String(++n).padStart(32, "0")}`;
const monitor = (name: string, tags: string[]): Monitor =>
  ({
    id: id("mon"),
    name,
    type: "tcp",
    config: { host: `${name.replace(/ /g, "-")}.example`, port: 443 },
    interval_seconds: 60,
    timeout_ms: 10000,
    paused: false,
    regions: ["local"],
    runner_ids: [],
    tags,
    created_at: `2026-01-01T00:00:0${n % 10}.000Z`,
  }) as unknown as Monitor;
const channel = (key: string | null, name = key ?? "hand"): Channel => ({ id: id("chn"), name, type: "email", config: { to: ["ops@example.com"] }, enabled: true, key, created_at: "2026-01-01T00:00:00.000Z" });
const rule = (key: string, monitorId: string, channelId: string): Rule => ({
  id: id("rul"),
  name: key,
  description: null,
  enabled: true,
  scope: { type: "monitor", monitor_id: monitorId },
  condition: { type: "status_change", to: ["down"] },
  confirmation: { consecutive_failures: 1, confirmation_regions: null },
  notifications: { on_recovery: true, recurring: false, recurring_interval_minutes: null },
  channels: [{ channel_id: channelId, delay_minutes: 0 }],
  escalation_policy_id: null,
  key,
  created_at: "2026-01-01T00:00:00.000Z",
});
const entry = (key: string) => ({ key, name: key, type: "tcp" as const, config: { host: `${key}.example`, port: 443 } });
const opts = (prune: boolean) => ({ prune, resendSecrets: false, env: {} });
const plain = { json: false, color: false } as never;
const summary = (changes: { action: string; kind: string; key: string }[]) => changes.map((c) => `${c.action} ${c.kind} ${c.key}`);

describe("project: the file's scope", () => {
  it("prefixes every key and rewrites references to the file's own items; a reference to anything else stays as written", () => {
    const file: DesiredState = {
      version: 1,
      project: "shop",
      monitors: [entry("api")],
      channels: [{ key: "mail", name: "Mail", type: "email", config: { to: ["a@example.com"] } }],
      escalation_policies: [{ key: "oncall", name: "On call", steps: [{ delay_minutes: 0, channels: ["mail", "ops-hook"] }] }],
      rules: [
        { key: "api-down", name: "API down", scope: { monitor: "api" }, condition: { type: "status_change" }, channels: [{ channel: "mail" }, { channel: "ops-hook" }] },
        { key: "other", name: "Other", scope: { monitor: "billing/api" }, condition: { type: "status_change" }, escalation_policy: "oncall" },
        { key: "tagged", name: "Tagged", scope: { tag: "api" }, condition: { type: "status_change" }, escalation_policy: "org-policy" },
      ],
      status_pages: [{ slug: "shop", name: "Shop", sections: [{ name: "S", components: [{ monitor: "api", display_name: "API" }, { monitor: "db", display_name: "DB" }, { tag: "api", display_name: "T" }] }] }],
      maintenance: [{ key: "deploy", name: "Deploy", rrule: "FREQ=WEEKLY", duration_minutes: 30, monitors: ["api", "db"] }],
    };
    const s = withProject(file);
    expect(s.monitors[0]!.key).toBe("shop/api");
    expect(s.channels![0]!.key).toBe("shop/mail");
    expect(s.escalation_policies![0]).toMatchObject({ key: "shop/oncall", steps: [{ channels: ["shop/mail", "ops-hook"] }] });
    expect(s.rules![0]).toMatchObject({ key: "shop/api-down", scope: { monitor: "shop/api" }, channels: [{ channel: "shop/mail" }, { channel: "ops-hook" }] });
    expect(s.rules![1]).toMatchObject({ key: "shop/other", scope: { monitor: "billing/api" }, escalation_policy: "shop/oncall" });
    expect(s.rules![2]).toMatchObject({ scope: { tag: "api" }, escalation_policy: "org-policy" });
    expect(s.status_pages![0]!.slug).toBe("shop");
    expect(s.status_pages![0]!.sections![0]!.components).toEqual([{ monitor: "shop/api", display_name: "API" }, { monitor: "db", display_name: "DB" }, { tag: "api", display_name: "T" }]);
    expect(s.maintenance![0]).toMatchObject({ key: "shop/deploy", monitors: ["shop/api", "db"] });
    // The file itself is not changed, and a file without a project is taken as it is.
    expect(file.monitors[0]!.key).toBe("api");
    const none = { version: 1, monitors: [entry("api")] };
    expect(withProject(none)).toBe(none);
  });

  it("scope: a project's keys, or without one the keys of no project", () => {
    expect(inScope("shop/api", "shop")).toBe(true);
    expect(inScope("shopping/api", "shop")).toBe(false);
    expect(inScope("api", "shop")).toBe(false);
    expect(inScope("api", undefined)).toBe(true);
    expect(inScope("shop/api", undefined)).toBe(false);
  });

  it("validates project: lower-case, at most 24 characters, no dots or slashes; references may name another project's key", () => {
    const doc = (project: unknown) => ({ version: 1, project, monitors: [entry("api")] });
    expect(validateConfig(doc("shop"))).toEqual([]);
    expect(validateConfig(doc("team_a-2"))).toEqual([]);
    for (const bad of ["Shop", "a.b", "a/b", "-a", "", "x".repeat(25), 3]) expect(validateConfig(doc(bad)).map((i) => i.path)).toEqual(["project"]);
    const ref = { ...doc("shop"), rules: [{ key: "r", name: "R", scope: { monitor: "billing/api" }, condition: { type: "status_change", to: ["down"] }, channels: [{ channel: "ops-hook" }] }] };
    expect(validateConfig(ref)).toEqual([]);
    // A file's own keys have no project prefix: the project gives it.
    expect(validateConfig({ version: 1, monitors: [{ ...entry("x"), key: "shop/api" }] }).map((i) => i.path)).toEqual(["monitors[0].key"]);
  });
});

describe("project: --prune deletes only the file's scope", () => {
  const org = () => [monitor("shop api", ["wp-key:shop/api"]), monitor("shop web", ["wp-key:shop/web"]), monitor("billing api", ["wp-key:billing/api"]), monitor("plain", ["wp-key:plain"]), monitor("by hand", [])];

  it("with a project: only the project's keyed items; other projects' are counted apart, never deleted", () => {
    const kept = computePlan({ version: 1, project: "shop", monitors: [entry("api")] }, org(), [], [], opts(true));
    expect(summary(kept.changes.filter((c) => c.action !== "update"))).toEqual(["delete monitor shop/web"]);
    expect(kept.otherProjects).toBe(1);
    expect(kept.unmanaged).toBe(2);
    expect(renderPlan(plain, kept)).toContain("2 other resources of the organisation left alone. 1 resource of other projects left alone.");
  });

  it("without a project: only keyed items of no project, as before", () => {
    const plan = computePlan({ version: 1, monitors: [] }, org(), [], [], opts(true));
    expect(summary(plan.changes)).toEqual(["delete monitor plain"]);
    expect(plan.otherProjects).toBe(3);
    expect(plan.unmanaged).toBe(1);
  });

  it("channels, rules and windows alike", () => {
    const channels = [channel("shop/mail"), channel("billing/mail"), channel("mail"), channel(null)];
    const windows = [{ key: "shop/w", name: "w", created_at: "2026-01-01T00:00:00.000Z", id: id("mw") }, { key: "billing/w", name: "w", created_at: "2026-01-01T00:00:00.000Z", id: id("mw") }] as Window[];
    const plan = computePlan({ version: 1, project: "shop", monitors: [], channels: [], maintenance: [] }, [], channels, [], opts(true), [], windows);
    expect(summary(plan.changes)).toEqual(["delete maintenance shop/w", "delete channel shop/mail"]);
    expect(plan.otherProjects).toBe(2);
    expect(plan.unmanaged).toBe(2);
  });
});

describe("project: adopting a file applied without one", () => {
  it("plans a key change of the same items (no creations) and apply writes the new keys", async () => {
    const api = monitor("api", ["prod", "wp-key:api"]);
    const mail = channel("mail", "Mail");
    const apiDown = rule("api-down", api.id, mail.id);
    const policy: Policy = { id: id("esc"), name: "On call", steps: [{ delay_minutes: 0, channel_ids: [mail.id] }], key: "oncall", created_at: "2026-01-01T00:00:00.000Z" };
    const file: DesiredState = {
      version: 1,
      project: "shop",
      monitors: [{ key: "api", name: "api", type: "tcp", config: { host: "api.example", port: 443 }, tags: ["prod"] }],
      channels: [{ key: "mail", name: "Mail", type: "email", config: { to: ["ops@example.com"] } }],
      escalation_policies: [{ key: "oncall", name: "On call", steps: [{ delay_minutes: 0, channels: ["mail"] }] }],
      rules: [{ key: "api-down", name: "api-down", scope: { monitor: "api" }, condition: { type: "status_change", to: ["down"] }, channels: [{ channel: "mail" }] }],
    };
    const plan = computePlan(file, [api], [mail], [apiDown], opts(true), [], [], [policy]);
    expect(summary(plan.changes)).toEqual(["update channel shop/mail", "update escalation_policy shop/oncall", "update monitor shop/api", "update rule shop/api-down"]);
    for (const c of plan.changes) expect("changes" in c && c.changes).toEqual([{ path: "key", before: c.key.slice(5), after: c.key }]);
    expect(renderPlan(plain, plan)).toContain('key: "api" → "shop/api"');

    const sent: { path: string; body: Record<string, unknown> }[] = [];
    const client = {
      PATCH: async (path: string, init: { params: { path: { id: string } }; body: Record<string, unknown> }) => {
        sent.push({ path, body: init.body });
        return { data: { id: init.params.path.id, name: "x" } };
      },
    } as unknown as ApiClient;
    const report = await applyPlan(client, plan, {});
    expect(report.failed).toEqual([]);
    const body = (p: string) => sent.find((s) => s.path === p)!.body;
    expect(body("/api/v1/alert-channels/{id}").key).toBe("shop/mail");
    expect(body("/api/v1/escalation-policies/{id}")).toMatchObject({ key: "shop/oncall", steps: [{ channel_ids: [mail.id] }] });
    expect((body("/api/v1/monitors/{id}").tags as string[]).sort()).toEqual(["prod", "wp-key:shop/api"]);
    expect(body("/api/v1/alert-rules/{id}")).toMatchObject({ key: "shop/api-down", scope: { type: "monitor", monitor_id: api.id }, channels: [{ channel_id: mail.id }] });
  });

  it("adopts only a stored key of no project that no project item holds: not a name-derived key, not over an existing project item", () => {
    const byHand = monitor("api", []);
    const plan = computePlan({ version: 1, project: "shop", monitors: [entry("api")] }, [byHand], [], [], opts(true));
    expect(summary(plan.changes)).toEqual(["create monitor shop/api"]);
    const both = [monitor("api", ["wp-key:api"]), monitor("api", ["wp-key:shop/api"])];
    const second = computePlan({ version: 1, project: "shop", monitors: [entry("api")] }, both, [], [], opts(true));
    expect(second.changes.flatMap((c) => ("changes" in c ? c.changes.map((f) => f.path) : []))).not.toContain("key");
    expect(second.unmanaged).toBe(1);
  });
});

describe("project: export", () => {
  const monitors = () => {
    const shopApi = monitor("Shop API", ["wp-key:shop/api"]);
    const billingApi = monitor("Billing API", ["wp-key:billing/api"]);
    const plain = monitor("Plain", ["wp-key:plain"]);
    return { shopApi, billingApi, plain, all: [shopApi, billingApi, plain] };
  };

  it("--project: only that project's items, keys without the prefix, references to others as stored", () => {
    const m = monitors();
    const mail = channel("shop/mail");
    const hook = channel("ops-hook");
    const rules = [rule("shop/api-down", m.shopApi.id, mail.id), rule("shop/billing-down", m.billingApi.id, hook.id), rule("billing/r", m.billingApi.id, hook.id)];
    const { state, left_out } = exportState(m.all, [mail, hook], rules, [], [], [], "shop");
    expect(state.project).toBe("shop");
    expect(state.monitors.map((x) => x.key)).toEqual(["api"]);
    expect(state.channels!.map((c) => c.key)).toEqual(["mail"]);
    expect(state.rules!.map((r) => [r.key, r.scope, r.channels])).toEqual([
      ["api-down", { monitor: "api" }, [{ channel: "mail" }]],
      ["billing-down", { monitor: "billing/api" }, [{ channel: "ops-hook" }]],
    ]);
    expect(validateConfig(state)).toEqual([]);
    expect(left_out).toEqual([]);
    // Planned back against the same organisation: no changes.
    const plan = computePlan(state, m.all, [mail, hook], rules, opts(true));
    expect(plan.changes).toEqual([]);
  });

  it("without --project: no item of a project, each project's count said as left out", () => {
    const m = monitors();
    const { state, left_out } = exportState(m.all, [channel("shop/mail")], [], [], [], []);
    expect(state.project).toBeUndefined();
    expect(state.monitors.map((x) => x.key)).toEqual(["plain"]);
    expect(state.channels).toBeUndefined();
    expect(left_out).toEqual(["1 item of project billing: export it with --project billing", "2 items of project shop: export them with --project shop"]);
  });

  it("leaves out a project rule naming an item of no project whose key the project also uses (the file could not tell them apart)", () => {
    const shopApi = monitor("Shop API", ["wp-key:shop/api"]);
    const orgApi = monitor("Org API", ["wp-key:api"]);
    const hook = channel("ops-hook");
    const { state, left_out } = exportState([shopApi, orgApi], [hook], [rule("shop/r", orgApi.id, hook.id)], [], [], [], "shop");
    expect(state.rules).toBeUndefined();
    expect(left_out[0]).toContain("outside the project");
  });
});
