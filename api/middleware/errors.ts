import { ValueErrorType } from "@sinclair/typebox/errors";
import { Elysia } from "elysia";
import { BusUnavailableError } from "../../core/bus/index.ts";
import { AppError, type ErrorBody, type ValidationIssue } from "../../core/errors.ts";
import type { Logger } from "../../core/log.ts";
import { isDatabaseUnavailable } from "../../db/client.ts";
import { EXIT_STATUS, TIME_OF_DAY, VISIBLE_TEXT } from "../schemas/common.ts";
import type { RouteTable } from "./route-table.ts";

const LOCATIONS = new Set(["body", "query", "params", "headers", "cookie"]);

/**
 * Issue paths read `body.config.url`, `query.limit`. Elysia reports a bad single query value as
 * type "property" without its name, so the name is found by its value in the URL.
 */
function validationIssues(error: { type?: string; all?: unknown; value?: unknown }, request?: Request): ValidationIssue[] {
  let where = LOCATIONS.has(error.type ?? "") ? (error.type as string) : "request";
  if (error.type === "property" && request) {
    const params = new URL(request.url).searchParams;
    // The value may come back as the number it was read as: 99999999999999999999 as 100000000000000000000.
    const same = (text: string | null) => text === String(error.value) || (typeof error.value === "number" && text !== null && text.trim() !== "" && Number(text) === error.value);
    const key = [...params.keys()].find((k) => same(params.get(k)));
    where = key ? `query.${key}` : "query";
  }
  let all: (Parameters<typeof issueMessage>[0] & { path?: string })[] = [];
  try {
    all = (error.all as typeof all) ?? [];
  } catch {
    all = [];
  }
  // A query parameter the route's schema does not declare reads as the edge words it for a route that takes none.
  const message = (e: (typeof all)[number]) => (where === "query" && e.type === ValueErrorType.ObjectAdditionalProperties ? "Unknown parameter" : issueMessage(e));
  const pathOf = (e: (typeof all)[number]) => `${where}${(e.path || "").replaceAll("/", ".")}`;
  // A missing property is also "expected string but found undefined": said once, as missing.
  const missing = new Set(all.filter((e) => e.type === ValueErrorType.ObjectRequiredProperty).map(pathOf));
  const issues = all.filter((e) => e.type === ValueErrorType.ObjectRequiredProperty || !missing.has(pathOf(e))).map((e) => ({ path: pathOf(e), message: message(e) }));
  return issues.length > 0 ? issues : [{ path: where, message: "Invalid value" }];
}

type Schema = { const?: unknown; type?: string; format?: string; pattern?: string; anyOf?: Schema[]; minimum?: number; maximum?: number };

/** Patterns and formats said as the form they ask for, with an example: a regular expression or a format's name helps nobody. */
const PATTERN_WORDS: Record<string, string> = {
  [VISIBLE_TEXT]: "Expected at least one visible character (not only spaces) and no control characters",
  [TIME_OF_DAY]: "Expected HH:MM (24 h), such as 09:00",
  [EXIT_STATUS]: "Expected an exit status, a whole number from 0 to 255 (or start, fail)",
};
const FORMAT_WORDS: Record<string, string> = {
  "date-time": "Expected a date and time in ISO 8601, such as 2026-11-29T14:30:00Z",
  date: "Expected a date, YYYY-MM-DD, such as 2026-11-29",
};

/** "a whole number from 1 to 10080": a bounded number said in words. */
function numberInWords(s: Schema): string {
  const what = s.type === "integer" ? "a whole number" : "a number";
  if (s.minimum !== undefined && s.maximum !== undefined) return `${what} from ${s.minimum} to ${s.maximum}`;
  if (s.minimum !== undefined) return `${what} of at least ${s.minimum}`;
  if (s.maximum !== undefined) return `${what} of at most ${s.maximum}`;
  return what;
}

/** Elysia words an enum or a numeric or boolean query value as "should be one of: 'string', 'string'"; name what is expected instead. */
function issueMessage(e: { type?: number; message?: string; summary?: string; schema?: Schema }): string {
  if (e.type === ValueErrorType.StringPattern && e.schema?.pattern && PATTERN_WORDS[e.schema.pattern]) return PATTERN_WORDS[e.schema.pattern]!;
  if (e.type === ValueErrorType.StringFormat && e.schema?.format && FORMAT_WORDS[e.schema.format]) return FORMAT_WORDS[e.schema.format]!;
  const options = e.schema?.anyOf;
  if (options?.length && options.every((o) => o.const !== undefined)) return `Expected one of: ${options.map((o) => String(o.const)).join(", ")}`;
  const numeric = options?.find((o) => o.type === "integer" || o.type === "number");
  if (numeric && options!.every((o) => o === numeric || o.format === numeric.type)) return `Expected ${numeric.type}`;
  // A query boolean is Elysia's union of a boolean and its string form ("should be one of: 'boolean', 'boolean'").
  const flag = options?.find((o) => o.type === "boolean");
  if (flag && options!.every((o) => o === flag || o.format === "boolean")) return "Expected true or false";
  // A nullable number out of range (0 for an interval of at least 1) would otherwise read "should be one of: 'undefined', 'null'".
  // (Elysia's t.Integer is itself a union with its string form, so look one level down.)
  const inner = (o: Schema) => o.anyOf ?? [o];
  const nullableNumber = options?.flatMap(inner).find((o) => o.type === "integer" || o.type === "number");
  if (nullableNumber && options!.some((o) => o.type === "null") && options!.every((o) => o.type === "null" || inner(o).includes(nullableNumber))) {
    return `Expected ${numberInWords(nullableNumber)}, or null`;
  }
  return e.summary || e.message || "Invalid value";
}

/** Maps every failure, ours or Elysia's, to the spec's error body. A 500 never carries internals. */
export function mapError(code: string | number, error: unknown, log: Logger, request?: Request): { status: number; body: ErrorBody } {
  if (error instanceof AppError) return { status: error.status, body: error.toBody() };
  switch (code) {
    case "VALIDATION": {
      const e = error as { type?: string };
      if (e.type === "response") break;
      return { status: 400, body: { error: "Request validation failed", code: "VALIDATION_ERROR", details: { issues: validationIssues(e as never, request) } } };
    }
    case "PARSE":
      return { status: 400, body: { error: "Request body is not valid JSON", code: "VALIDATION_ERROR", details: { issues: [{ path: "body", message: "Malformed body" }] } } };
    case "NOT_FOUND":
      return { status: 404, body: { error: "Route not found", code: "NOT_FOUND" } };
    case "INVALID_COOKIE_SIGNATURE":
      return { status: 400, body: { error: "Invalid cookie", code: "VALIDATION_ERROR", details: { issues: [{ path: "cookie", message: "Invalid signature" }] } } };
  }
  if (isUnstorableText(error)) {
    return { status: 400, body: { error: "Request contains text that cannot be stored (a NUL character)", code: "VALIDATION_ERROR", details: { issues: [{ path: "request", message: "Contains a NUL (\\u0000) character" }] } } };
  }
  if (isDatabaseUnavailable(error)) {
    return { status: 503, body: { error: "The database is unavailable; retry shortly", code: "SERVICE_UNAVAILABLE", details: { retryAfterSeconds: 5 } } };
  }
  if (error instanceof BusUnavailableError) {
    // NATS restarting or unreachable: runners retry after Retry-After. No log line per request, as for the database:
    // the roles log the outage themselves.
    return { status: 503, body: { error: "The message bus is unavailable; retry shortly", code: "SERVICE_UNAVAILABLE", details: { retryAfterSeconds: 5 } } };
  }
  log.error({ op: "api.error", code, err: error }, "unhandled error");
  return { status: 500, body: { error: "Internal server error", code: "INTERNAL_ERROR" } };
}

/** Tells `listeners` (ApiDeps.databaseUnreachable) when `error` is the database being unreachable. */
export function tellIfDatabaseUnreachable(error: unknown, listeners: ReadonlySet<() => void>): void {
  if (isDatabaseUnavailable(error)) for (const listener of listeners) listener();
}

export const errorsPlugin = (log: Logger, routes?: RouteTable, databaseUnreachable: ReadonlySet<() => void> = new Set()) =>
  new Elysia({ name: "errors" }).onError({ as: "global" }, ({ code, error, set, request }) => {
    if (code === "NOT_FOUND") {
      // A path that exists under other methods: 405 with the methods it takes (RFC 9110 §15.5.6).
      const allow = routes?.allowedMethods(new URL(request.url).pathname) ?? [];
      if (allow.length > 0 && !allow.includes(request.method)) {
        set.status = 405;
        set.headers.allow = allow.join(", ");
        return { error: `${request.method} is not supported here; use ${allow.join(", ")}`, code: "METHOD_NOT_ALLOWED", details: { allow } };
      }
    }
    tellIfDatabaseUnreachable(error, databaseUnreachable);
    const { status, body } = mapError(code, error, log, request);
    set.status = status;
    if (status === 503) set.headers["retry-after"] = "5";
    // A 429 thrown by a service (the per-account sign-in throttle) carries its wait in the header too.
    const wait = status === 429 ? body.details?.retryAfterSeconds : undefined;
    if (typeof wait === "number") set.headers["retry-after"] = String(wait);
    return body;
  });

/**
 * PostgreSQL refuses text with a NUL character (22021 in text, 22P05 as \u0000 in jsonb). Only a
 * request can carry one, in any field or path segment, so it is the client's error, not a fault.
 */
function isUnstorableText(error: unknown): boolean {
  const code = (error as { code?: string })?.code;
  return code === "22021" || code === "22P05";
}
