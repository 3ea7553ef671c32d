import { describe, expect, it } from "bun:test";
import { conditionTypes } from "../../../../schemas/alerting/conditions.ts";
import { allMetricNames } from "../../../../schemas/checks/metric-names.ts";
import { FormIssuesError } from "../../lib/form-issues";
import { CONDITION_TYPES, conditionFields, describeRule, readRuleForm } from "./rule-body";

const form = (entries: Record<string, string | string[]>) => {
  const f = new FormData();
  for (const [k, v] of Object.entries(entries)) for (const x of [v].flat()) f.append(k, x);
  return f;
};
const issuesOf = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    if (err instanceof FormIssuesError) return err.issues;
    throw err;
  }
  return {};
};

describe("readRuleForm", () => {
  it("offers every condition type of the engine, with its own fields", () => {
    expect([...CONDITION_TYPES].sort()).toEqual([...conditionTypes].sort());
    expect(conditionFields("metric_threshold").map((f) => f.key)).toEqual(["metric", "operator", "threshold"]);
    expect(conditionFields("certificate_changed")).toEqual([]);
  });

  it("suggests every metric a check type reports for a metric_threshold rule, from the check-type registry", () => {
    const metric = conditionFields("metric_threshold").find((f) => f.key === "metric")!;
    expect(metric.kind).toBe("text");
    expect(metric.suggestions).toEqual([...allMetricNames]);
    expect(metric.suggestions).toContain("rtt_avg_ms");
    expect(metric.suggestions).toContain("banner_ms");
  });

  it("builds a rule with channel bindings and their delays", () => {
    const body = readRuleForm(
      form({
        name: "Prod down",
        enabled: "on",
        "scope.type": "monitor_group",
        "scope.tag": "prod",
        "condition.type": "status_change",
        "condition.to": ["down", "timeout"],
        "confirmation.consecutive_failures": "2",
        "notifications.on_recovery": "on",
        delivery: "channels",
        channel_id: ["ch_a", "ch_b"],
        "delay.ch_a": "0",
        "delay.ch_b": "15",
      }),
    );
    expect(body).toMatchObject({
      name: "Prod down",
      enabled: true,
      scope: { type: "monitor_group", tag: "prod" },
      condition: { type: "status_change", to: ["down", "timeout"] },
      confirmation: { consecutive_failures: 2 },
      notifications: { on_recovery: true, recurring: false, recurring_interval_minutes: null },
      channels: [
        { channel_id: "ch_a", delay_minutes: 0 },
        { channel_id: "ch_b", delay_minutes: 15 },
      ],
      escalation_policy_id: null,
    });
  });

  it("refuses what the API's normalisation refuses, on the API's paths", () => {
    const issues = issuesOf(() =>
      readRuleForm(form({ name: "", "scope.type": "monitor", "scope.monitor_id": "", "condition.type": "ssl_expiry", "condition.days_before": "0", delivery: "channels", "notifications.recurring": "on" })),
    );
    expect(Object.keys(issues).sort()).toEqual(["body.channels", "body.condition.days_before", "body.name", "body.notifications.recurring_interval_minutes", "body.scope.monitor_id"]);
    expect(issues["body.channels"]).toContain("at least one channel binding");
  });

  it("follows an escalation policy instead of channels", () => {
    const body = readRuleForm(form({ name: "Paging", "scope.type": "all_monitors", "condition.type": "monitoring_unavailable", delivery: "policy", escalation_policy_id: "esc_1", channel_id: "ch_a" }));
    expect(body).toMatchObject({ escalation_policy_id: "esc_1", channels: [], condition: { type: "monitoring_unavailable" } });
  });
});

describe("describeRule", () => {
  it("says in one line what the rule watches and who hears", () => {
    const names = { channels: new Map([["ch_a", "Email"], ["ch_b", "Pager"]]), policies: new Map() };
    expect(
      describeRule(
        { scope: { type: "all_monitors" }, condition: { type: "status_change", to: ["down"] }, confirmation: { consecutive_failures: 3 }, channels: [{ channel_id: "ch_a", delay_minutes: 0 }, { channel_id: "ch_b", delay_minutes: 10 }], escalation_policy_id: null },
        names,
      ),
    ).toBe("Every monitor: status becomes down 3 checks in a row → Email, Pager after 10 min");
    expect(describeRule({ scope: { type: "monitor_group", tag: "db" }, condition: { type: "metric_threshold", metric: "response_time", operator: "gt", threshold: 500 }, confirmation: { consecutive_failures: 1 }, channels: [], escalation_policy_id: "p" }, names)).toBe(
      "Monitors tagged “db”: response_time > 500 → policy p",
    );
  });
});
