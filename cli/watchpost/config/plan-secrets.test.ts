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
    const report = await applyPlan(client, plan, {});
    expect(sent).toEqual([]);
    expect(report.failed).toHaveLength(1);
    expect(report.failed[0]!.code).toBe("MISSING_ENV");
    expect(report.failed[0]!.error).toContain("ENV_NAME");
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
