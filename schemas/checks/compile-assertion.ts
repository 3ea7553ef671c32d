import { query } from "jsonpath-rfc9535";
import { RE2JS } from "re2js";
import { OPERATORS_BY_SOURCE, OPERATORS_WITHOUT_TARGET, type Assertion } from "./assertion-schema.ts";

/** An assertion ready to evaluate: its regular expression compiled, its numeric target read. */
export interface CompiledAssertion {
  index: number;
  assertion: Assertion;
  regex: RE2JS | null;
  targetNumber: number | null;
  targetText: string | null;
}

interface Issue {
  /** Below the config, e.g. `assertions.0.property`. */
  path: string;
  message: string;
}

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const NUMERIC_OPERATORS = new Set(["greater_than", "less_than"]);

const numberOf = (target: unknown): number | null => {
  if (typeof target === "number") return Number.isFinite(target) ? target : null;
  if (typeof target === "string" && target.trim() !== "" && Number.isFinite(Number(target))) return Number(target);
  return null;
};

/** Whether the regular expression compiles under RE2 (linear-time matching, so no catastrophic backtracking). */
function regexError(pattern: string): string | null {
  try {
    RE2JS.compile(pattern);
    return null;
  } catch (err) {
    return (err as Error).message.replace(/^error parsing regexp: /, "");
  }
}

function jsonPathError(expression: string): string | null {
  try {
    query(null, expression);
    return null;
  } catch (err) {
    return (err as Error).message;
  }
}

/** What is wrong with one assertion beyond its shape (which TypeBox has checked). */
function issuesOf(a: Assertion, at: string): Issue[] {
  const issues: Issue[] = [];
  const allowed = OPERATORS_BY_SOURCE[a.source];
  if (!allowed.includes(a.operator)) {
    issues.push({ path: `${at}.operator`, message: `operator ${a.operator} does not apply to ${a.source}; use one of: ${allowed.join(", ")}` });
    return issues;
  }
  if (a.source === "header" || a.source === "json") {
    if (a.property === undefined) {
      issues.push({ path: `${at}.property`, message: a.source === "header" ? "a header assertion needs property: the header's name" : "a json assertion needs property: a JSONPath expression such as $.status" });
    } else if (a.source === "header" && !HEADER_NAME.test(a.property)) {
      issues.push({ path: `${at}.property`, message: `"${a.property}" is not a valid header name` });
    } else if (a.source === "json") {
      const error = jsonPathError(a.property);
      if (error) issues.push({ path: `${at}.property`, message: `not a valid JSONPath expression (RFC 9535): ${error}` });
    }
  } else if (a.property !== undefined) {
    issues.push({ path: `${at}.property`, message: `property is not used by ${a.source}; leave it out` });
  }
  if (OPERATORS_WITHOUT_TARGET.includes(a.operator)) {
    if (a.target !== undefined && a.target !== "") issues.push({ path: `${at}.target`, message: `${a.operator} compares with nothing; leave target out` });
    return issues;
  }
  if (a.target === undefined || a.target === "") {
    issues.push({ path: `${at}.target`, message: `${a.operator} needs a target` });
    return issues;
  }
  const numeric = numberOf(a.target);
  if (a.source === "status_code" && (numeric === null || !Number.isInteger(numeric) || numeric < 100 || numeric > 599)) {
    issues.push({ path: `${at}.target`, message: "must be an HTTP status code from 100 to 599" });
  } else if (a.source === "response_time" && (numeric === null || numeric < 0)) {
    issues.push({ path: `${at}.target`, message: "must be a number of milliseconds" });
  } else if (NUMERIC_OPERATORS.has(a.operator) && numeric === null) {
    issues.push({ path: `${at}.target`, message: `${a.operator} needs a number as target` });
  } else if (a.operator === "matches") {
    const error = regexError(String(a.target));
    if (error) issues.push({ path: `${at}.target`, message: `not a valid regular expression (RE2 syntax): ${error}` });
  }
  return issues;
}

/** Every problem of a config's assertions, with paths below the config (`assertions.2.target`). */
export function assertionIssues(assertions: readonly Assertion[] | undefined): Issue[] {
  return (assertions ?? []).flatMap((a, i) => issuesOf(a, `assertions.${i}`));
}

/** Compiles validated assertions; throws for one that assertionIssues would refuse. */
export function compileAssertions(assertions: readonly Assertion[]): CompiledAssertion[] {
  const issues = assertionIssues(assertions);
  if (issues.length > 0) throw new Error(`invalid assertion: ${issues[0]!.path}: ${issues[0]!.message}`);
  return assertions.map((assertion, i) => ({
    index: i + 1,
    assertion,
    regex: assertion.operator === "matches" ? RE2JS.compile(String(assertion.target)) : null,
    targetNumber: numberOf(assertion.target),
    targetText: assertion.target === undefined ? null : String(assertion.target),
  }));
}
