import type { Condition, ConditionOf, ConditionType } from "../../schemas/alerting/conditions.ts";

export type { Condition } from "../../schemas/alerting/conditions.ts";

/** What a condition sees of one check result. */
export interface ResultView {
  status: string;
  duration_ms: number;
  data: Record<string, unknown>;
}

/**
 * `holds`: the condition is met (counts toward consecutive_failures); `passes`: it is not
 * (a passing check: recovers a firing alert, resets the counter); `unknown`: this result
 * cannot tell (metric missing, not that kind of monitor, check could not run) and changes nothing.
 */
export type Verdict = "holds" | "passes" | "unknown";

/** Memory a condition keeps per (rule, monitor, region) between results. */
export interface ConditionMemory {
  fingerprint?: string | null;
}

export interface ConditionImpl<C> {
  describe(c: C): string;
  evaluate(c: C, r: ResultView, memory: ConditionMemory): { verdict: Verdict; memory?: ConditionMemory };
}

const num = (v: unknown): number | undefined => (typeof v === "number" && Number.isFinite(v) ? v : undefined);
const compare = { gt: (a: number, b: number) => a > b, lt: (a, b) => a < b, eq: (a, b) => a === b, neq: (a, b) => a !== b, gte: (a, b) => a >= b, lte: (a, b) => a <= b } satisfies Record<
  ConditionOf<"metric_threshold">["operator"],
  (a: number, b: number) => boolean
>;
const SYMBOL = { gt: ">", lt: "<", eq: "=", neq: "≠", gte: "≥", lte: "≤" } as const;
const verdict = (holds: boolean | undefined): { verdict: Verdict } => ({ verdict: holds === undefined ? "unknown" : holds ? "holds" : "passes" });

/** The one place a condition type is evaluated; a type missing here fails type-checking. */
const conditions: { [K in ConditionType]: ConditionImpl<ConditionOf<K>> } = {
  status_change: {
    describe: (c) => `status is ${c.to.join(" or ")}`,
    evaluate: (c, r) => verdict((c.to as string[]).includes(r.status)),
  },
  metric_threshold: {
    describe: (c) => `${c.metric} ${SYMBOL[c.operator]} ${c.threshold}`,
    evaluate: (c, r) => {
      const value = c.metric === "response_time" || c.metric === "duration_ms" ? num(r.duration_ms) : num(r.data[c.metric]);
      return verdict(value === undefined ? undefined : compare[c.operator](value, c.threshold));
    },
  },
  ssl_expiry: {
    describe: (c) => `certificate expires within ${c.days_before} days`,
    evaluate: (c, r) => {
      const days = num(r.data.ssl_days_remaining);
      return verdict(days === undefined ? undefined : days <= c.days_before);
    },
  },
  domain_expiry: {
    describe: (c) => `domain expires within ${c.days_before} days`,
    evaluate: (c, r) => {
      const days = num(r.data.domain_days_remaining);
      return verdict(days === undefined ? undefined : days <= c.days_before);
    },
  },
  keyword_missing: {
    describe: (c) => `keyword "${c.keyword}" missing`,
    evaluate: (c, r) => {
      const found = r.data.keyword_found;
      const checked = r.data.keyword;
      // The rule's keyword is what it checks: a result answers for it only when the check looked for that same keyword.
      if (typeof checked !== "string" || typeof found !== "boolean") return verdict(undefined);
      const same = r.data.keyword_case_sensitive === true ? checked === c.keyword : checked.toLowerCase() === c.keyword.toLowerCase();
      return verdict(same ? !found : undefined);
    },
  },
  certificate_changed: {
    describe: () => "certificate changed",
    evaluate: (_c, r, memory) => {
      const fp = typeof r.data.fingerprint_sha256 === "string" ? r.data.fingerprint_sha256 : undefined;
      if (fp === undefined) return verdict(undefined);
      const before = memory.fingerprint ?? null;
      return { verdict: before !== null && before !== fp ? "holds" : "passes", memory: { ...memory, fingerprint: fp } };
    },
  },
  monitoring_unavailable: {
    describe: () => "monitoring unavailable (no runner or region could run the check)",
    evaluate: (_c, r) => verdict(r.status === "unavailable"),
  },
};

/** `unavailable` results count only for monitoring_unavailable: a gap in checking says nothing about the target. */
export function evaluateCondition(c: Condition, r: ResultView, memory: ConditionMemory): { verdict: Verdict; memory: ConditionMemory } {
  if (r.status === "unavailable" && c.type !== "monitoring_unavailable") return { verdict: "unknown", memory };
  const impl = conditions[c.type] as ConditionImpl<Condition>;
  const out = impl.evaluate(c, r, memory);
  return { verdict: out.verdict, memory: out.memory ?? memory };
}

export const describeCondition = (c: Condition): string => (conditions[c.type] as ConditionImpl<Condition>).describe(c);
