import { httpRequest, type HttpResponse } from "../shared/http-client.ts";
import type { CheckData, ProbeContext, ProbeOutcome } from "../types.ts";
import { assertionVerdict, evaluateAssertions } from "./assertions.ts";
import { statusMatches } from "./expected-status.ts";
import { HTTP_DEFAULTS, type HttpConfig } from "./http-schema.ts";

/** Runs the configured request; measurements land in ctx.data as they are taken. */
export function requestForCheck(config: HttpConfig, ctx: ProbeContext, keepBody: boolean): Promise<HttpResponse> {
  return httpRequest({
    url: config.url,
    method: config.method ?? HTTP_DEFAULTS.method,
    headers: requestHeaders(config),
    body: config.body,
    followRedirects: config.follow_redirects ?? HTTP_DEFAULTS.follow_redirects,
    maxRedirects: config.max_redirects ?? HTTP_DEFAULTS.max_redirects,
    tlsVerify: config.tls_verify ?? HTTP_DEFAULTS.tls_verify,
    keepBody,
    extraCa: ctx.endpoints?.trustedCa,
    guard: ctx.guardOptions,
    measurements: ctx.data,
    progress: ctx,
  });
}

/**
 * Status, redirect-limit, assertion and slowness rules shared by http and keyword checks. Each
 * assertion's outcome goes into data.assertions; a status_code assertion replaces expected_status.
 */
export function judgeHttpResponse(config: HttpConfig, res: HttpResponse, elapsedMs: number, data: CheckData): ProbeOutcome {
  if (res.redirectLimitHit) {
    return { status: "down", error: `too many redirects: stopped at ${res.statusCode} after ${res.redirects} (max_redirects is ${config.max_redirects ?? HTTP_DEFAULTS.max_redirects})` };
  }
  const assertions = config.assertions ?? [];
  const outcomes = assertions.length === 0 ? [] : evaluateAssertions(assertions, { statusCode: res.statusCode, headers: res.headers, body: res.body, elapsedMs });
  if (assertions.length > 0) {
    data.assertions = outcomes;
    data.assertions_failed = outcomes.filter((o) => !o.passed).length;
  }
  const expected = config.expected_status ?? HTTP_DEFAULTS.expected_status;
  if (!assertions.some((a) => a.source === "status_code") && !statusMatches(expected, res.statusCode)) {
    return { status: "down", error: `unexpected status ${res.statusCode} (expected ${expected.join(", ")})` };
  }
  const verdict = assertionVerdict(outcomes);
  if (verdict) return verdict;
  if (config.degraded_above_ms !== undefined && elapsedMs > config.degraded_above_ms) {
    return { status: "degraded", error: `response took ${Math.round(elapsedMs)} ms, above degraded_above_ms ${config.degraded_above_ms}` };
  }
  return { status: "up" };
}

function requestHeaders(config: HttpConfig): Record<string, string> {
  const headers: Record<string, string> = { ...config.headers };
  const auth = config.auth;
  if (auth?.type === "basic") headers.authorization = `Basic ${Buffer.from(`${auth.username}:${auth.password}`).toString("base64")}`;
  else if (auth?.type === "bearer") headers.authorization = `Bearer ${auth.token}`;
  return headers;
}
