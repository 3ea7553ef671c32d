import { isDeepStrictEqual } from "node:util";
import { query } from "jsonpath-rfc9535";
import type { Assertion } from "../../../schemas/checks/assertion-schema.ts";
import { compileAssertions, type CompiledAssertion } from "../../../schemas/checks/compile-assertion.ts";
import type { CheckDataRecord, ProbeOutcome } from "../types.ts";

/** What assertions read of a response. */
export interface ResponseSnapshot {
  statusCode: number;
  headers: Record<string, string | string[] | undefined>;
  /** The body as read (at most 1 MiB); null when it was not kept. */
  body: Buffer | null;
  elapsedMs: number;
}

export interface AssertionOutcome extends CheckDataRecord {
  index: number;
  source: string;
  property: string | null;
  operator: string;
  target: string | null;
  actual: string | null;
  passed: boolean;
  severity: "down" | "degraded";
}

const MISSING = Symbol("missing");
type Value = unknown | typeof MISSING;
const ACTUAL_MAX = 200;
const MESSAGE_ASSERTIONS = 5;
const cut = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

/** Whether any assertion reads the body (so the request must keep it). */
export const needsBody = (assertions: readonly Assertion[] | undefined) => (assertions ?? []).some((a) => a.source === "body" || a.source === "json");

/** Text of a value for the outcome's `actual`, cut to 200 characters. */
function shown(value: Value): string | null {
  if (value === MISSING) return null;
  const text = typeof value === "string" ? value : JSON.stringify(value);
  return text.length > ACTUAL_MAX ? `${text.slice(0, ACTUAL_MAX)}…` : text;
}

/** JSON equality with a target given as text: numbers numerically, strings exactly, the rest as parsed JSON. */
function sameValue(value: unknown, c: CompiledAssertion): boolean {
  if (typeof value === "number") return c.targetNumber === value;
  if (typeof value === "string") return value === c.targetText;
  try {
    return isDeepStrictEqual(value, JSON.parse(c.targetText ?? ""));
  } catch {
    return false;
  }
}

const isEmpty = (v: unknown) => v === null || v === "" || (Array.isArray(v) && v.length === 0) || (typeof v === "object" && v !== null && Object.keys(v).length === 0);

function numeric(v: unknown): number | null {
  if (typeof v === "number") return v;
  if (typeof v === "string" && v.trim() !== "" && Number.isFinite(Number(v))) return Number(v);
  return null;
}

function contains(value: unknown, c: CompiledAssertion): boolean {
  if (typeof value === "string") return value.includes(c.targetText ?? "");
  if (Array.isArray(value)) return value.some((item) => sameValue(item, c));
  if (typeof value === "object" && value !== null) return Object.hasOwn(value, c.targetText ?? "");
  return false;
}

/** Applies the operator; every operator but exists and not_exists fails on a missing value. */
function holds(value: Value, c: CompiledAssertion): boolean {
  const op = c.assertion.operator;
  if (op === "exists") return value !== MISSING;
  if (op === "not_exists") return value === MISSING;
  if (value === MISSING) return false;
  switch (op) {
    case "equals":
      return sameValue(value, c);
    case "not_equals":
      return !sameValue(value, c);
    case "greater_than":
    case "less_than": {
      const n = numeric(value);
      if (n === null || c.targetNumber === null) return false;
      return op === "greater_than" ? n > c.targetNumber : n < c.targetNumber;
    }
    case "contains":
      return contains(value, c);
    case "not_contains":
      return !contains(value, c);
    case "matches":
      return typeof value === "string" && c.regex !== null && c.regex.matcher(value).find();
    case "is_empty":
      return isEmpty(value);
    case "not_empty":
      return !isEmpty(value);
  }
  return false;
}

/** Reads each source once: the body is decoded and parsed only when an assertion needs it. */
function reader(res: ResponseSnapshot) {
  let text: string | undefined;
  let json: { value: unknown } | { error: string } | undefined;
  const bodyText = () => (text ??= res.body?.toString("utf8") ?? "");
  const bodyJson = () => {
    if (!json) {
      try {
        json = { value: JSON.parse(bodyText()) };
      } catch {
        json = { error: "the body is not JSON" };
      }
    }
    return json;
  };
  return (a: Assertion): { value: Value; note?: string } => {
    switch (a.source) {
      case "status_code":
        return { value: res.statusCode };
      case "response_time":
        return { value: Math.round(res.elapsedMs) };
      case "header": {
        const raw = res.headers[a.property!.toLowerCase()];
        return { value: raw === undefined ? MISSING : Array.isArray(raw) ? raw.join(", ") : raw };
      }
      case "body":
        return { value: bodyText() };
      case "json": {
        const parsed = bodyJson();
        if ("error" in parsed) return { value: MISSING, note: parsed.error };
        // One node is its value; several (a wildcard) are the list of them.
        const nodes = query(parsed.value as never, a.property!);
        return { value: nodes.length === 0 ? MISSING : nodes.length === 1 ? nodes[0] : nodes };
      }
    }
  };
}

/** Evaluates every assertion against one response, in config order. */
export function evaluateAssertions(assertions: readonly Assertion[], res: ResponseSnapshot): AssertionOutcome[] {
  const read = reader(res);
  return compileAssertions(assertions).map((c) => {
    const { value, note } = read(c.assertion);
    const a = c.assertion;
    return {
      index: c.index,
      source: a.source,
      property: a.property ?? null,
      operator: a.operator,
      target: c.targetText,
      actual: note ?? (a.source === "body" ? null : shown(value)),
      passed: holds(value, c),
      severity: a.severity ?? "down",
    };
  });
}

/** A number as it is, any other text in quotes. */
const quoted = (text: string) => (text.trim() !== "" && Number.isFinite(Number(text)) ? text : JSON.stringify(text));

/** "json $.status equals "ok"": an assertion named the way the config reads. */
function describeAssertion(o: AssertionOutcome): string {
  const target = o.target === null ? "" : ` ${quoted(o.target)}`;
  return `${o.source}${o.property === null ? "" : ` ${o.property}`} ${o.operator.replaceAll("_", " ")}${target}`;
}

/** The check's status from the failed assertions: down if one of severity down failed, else degraded; null when all held. */
export function assertionVerdict(outcomes: readonly AssertionOutcome[]): ProbeOutcome | null {
  const failed = outcomes.filter((o) => !o.passed);
  if (failed.length === 0) return null;
  // Results carry at most 4000 characters of error (runner protocol): name the first few, each cut short.
  const words = failed.slice(0, MESSAGE_ASSERTIONS).map((o) => cut(`#${o.index} ${describeAssertion(o)}${o.actual === null ? "" : ` (got ${quoted(o.actual)})`}`, 300));
  if (failed.length > MESSAGE_ASSERTIONS) words.push(`${failed.length - MESSAGE_ASSERTIONS} more (see data.assertions)`);
  const error = `${failed.length === 1 ? "assertion failed" : `${failed.length} assertions failed`}: ${words.join("; ")}`;
  return { status: failed.some((o) => o.severity === "down") ? "down" : "degraded", error };
}
