import { describe, expect, it } from "bun:test";
import type { Monitor } from "../monitor-ref.ts";
import { applyPlan } from "./apply.ts";
import type { ApiClient } from "../client.ts";
import type { DesiredState } from "./load.ts";
import { computePlan } from "./plan.ts";
import { renderPlan } from "./render-plan.ts";

const stored = (config: Record<string, unknown>): Monitor =>
  ({
    id: "mon_00000000000000000000000000000001",
    name: "Sec",
    type: "http",
    config: { method: "GET", tls_verify: true, max_redirects: 5, expected_status: ["200-399"], follow_redirects: true, ...config },
    interval_seconds: 300,
    timeout_ms: 30000,
    paused: false,
    regions: ["local"],
    runner_ids: [],
    tags: ["wp-key:sec"],
    created_at: "2026-01-01T00:00:00.000Z",
  }) as unknown as Monitor;

const file = (config: Record<string, unknown>): DesiredState => ({ version: 1, monitors: [{ key: "sec", name: "Sec", type: "http", config }] });
const plain = { json: false, color: false } as never;

describe("plan and apply with ${VAR} references outside the API's secret fields", () => {
  it("never prints the value a reference had: the stored value of a field the file fills from a variable is shown as (secret)", () => {
    const current = stored({ url: "http://127.0.0.1:18081/?token=old-SECRET-value", body: '{"password":"old-BODY-secret"}' });
    const desired = file({ url: "http://127.0.0.1:18081/?token=${URL_TOKEN}", body: '{"password":"${BODY_PW}"}' });
    const plan = computePlan(desired, [current], [], [], { prune: false, resendSecrets: false, env: { URL_TOKEN: "new-SECRET-value", BODY_PW: "new-BODY-secret" } });
    const text = renderPlan(plain, plan) + JSON.stringify(plan.changes.map((c) => ("changes" in c ? c.changes : [])));
    expect(plan.changes).toHaveLength(1);
    expect(text).not.toContain("old-SECRET-value");
    expect(text).not.toContain("old-BODY-secret");
    expect(text).not.toContain("new-SECRET-value");
    expect(text).toContain("config.url");
  });

  it("apply refuses, naming the variable, when a reference in a field that is not a stored secret is unset (instead of sending ••••••••)", async () => {
    const current = stored({ url: "http://127.0.0.1:18081/health", headers: { "X-Env": "prod" } });
    const desired = file({ url: "http://127.0.0.1:18081/health", headers: { "X-Env": "${ENV_NAME}" } });
    const plan = computePlan(desired, [current], [], [], { prune: false, resendSecrets: false, env: {} });
    const sent: unknown[] = [];
    const client = {
      PATCH: async (_path: string, init: { body: unknown }) => {
        sent.push(init.body);
        return { data: { id: current.id, name: current.name } };
      },
    } as unknown as ApiClient;
    const err = await applyPlan(client, plan, {}).catch((e) => e);
    expect(sent).toEqual([]);
    expect(err.code).toBe("MISSING_ENV");
    expect(err.message).toContain("ENV_NAME");
  });

  it("apply still keeps a stored secret (sends the mask back) when the variable of a secret field is unset", async () => {
    const current = stored({ url: "http://127.0.0.1:18081/health", headers: { "X-Api-Token": "••••••••" } });
    const desired = file({ url: "http://127.0.0.1:18081/new", headers: { "X-Api-Token": "${SHOP_TOKEN}" } });
    const plan = computePlan(desired, [current], [], [], { prune: false, resendSecrets: false, env: {} });
    const sent: { config: { headers: Record<string, string> } }[] = [];
    const client = {
      PATCH: async (_path: string, init: { body: { config: { headers: Record<string, string> } } }) => {
        sent.push(init.body);
        return { data: { id: current.id, name: current.name } };
      },
    } as unknown as ApiClient;
    const report = await applyPlan(client, plan, {});
    expect(report.failed).toEqual([]);
    expect(sent[0]!.config.headers["X-Api-Token"]).toBe("••••••••");
  });
});

describe("variables apply needs, found before anything changes", () => {
  const desired: DesiredState = {
    version: 1,
    channels: [{ key: "hook", name: "Hook", type: "webhook", config: { url: "${HOOK_URL}" } } as never],
    monitors: [
      { key: "shop", name: "Shop", type: "http", config: { url: "http://127.0.0.1:18081/", headers: { "X-Api-Token": "${SHOP_TOKEN}" } } },
      { key: "sec", name: "Sec", type: "http", config: { url: "http://127.0.0.1:18081/health", headers: { "X-Env": "${ENV_NAME}", "X-Api-Token": "${KEPT_TOKEN}" } } },
    ],
  };
  const current = stored({ url: "http://127.0.0.1:18081/health", headers: { "X-Env": "prod", "X-Api-Token": "••••••••" } });

  it("plan names each unset variable apply would refuse, with what needs it; a stored secret kept needs none", () => {
    const plan = computePlan(desired, [current], [], [], { prune: false, resendSecrets: false, env: {} });
    expect(plan.unsetForApply).toEqual([
      { variable: "HOOK_URL", kind: "channel", key: "hook", action: "create" },
      { variable: "SHOP_TOKEN", kind: "monitor", key: "shop", action: "create" },
      { variable: "ENV_NAME", kind: "monitor", key: "sec", action: "update" },
    ]);
    expect(renderPlan(plain, plan)).toContain("apply needs these variables, unset here: HOOK_URL (channel hook), SHOP_TOKEN (monitor shop), ENV_NAME (monitor sec)");
  });

  it("apply refuses before changing anything, naming them all", async () => {
    const plan = computePlan(desired, [current], [], [], { prune: false, resendSecrets: false, env: {} });
    const calls: string[] = [];
    const client = new Proxy({}, { get: (_t, method) => async (path: string) => (calls.push(`${String(method)} ${path}`), { data: {} }) }) as unknown as ApiClient;
    const err = await applyPlan(client, plan, {}).catch((e) => e);
    expect(calls).toEqual([]);
    expect(err.code).toBe("MISSING_ENV");
    expect(err.message).toBe("set HOOK_URL, SHOP_TOKEN, ENV_NAME: apply needs them (channel hook, monitor shop, monitor sec); nothing was changed");
  });
});
