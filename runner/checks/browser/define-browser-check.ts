import type { Static, TObject, TSchema } from "@sinclair/typebox";
import type { BrowserContext, Page } from "playwright-core";
import { describeFields } from "../../../schemas/checks/data-fields.ts";
import { ms } from "../shared/timing.ts";
import {
  type BrowserCheckType,
  CheckAbortedError,
  type CheckArtifact,
  type CheckContext,
  type CheckData,
  type CheckResult,
  type CheckStatus,
  CheckUnavailableError,
  type Check,
} from "../types.ts";
import type { BrowserLease } from "./browser-pool.ts";
import { BROWSER_DEFAULTS, DEFAULT_VIEWPORT } from "../../../schemas/checks/browser-fields.ts";
import { isEngine } from "./engines.ts";
import { PROXY_MARK_HEADER } from "./guard-proxy.ts";
import { type BrowserGuard, startBrowserGuard } from "./page-guard.ts";
import { observePage } from "./page-observer.ts";
import { BrowserLostError } from "./pool-errors.ts";
import { captureScreenshot, stopLoading } from "./screenshot.ts";

/** Config fields the shared runner reads; both browser schemas have them. */
interface CommonConfig {
  engine?: string;
  viewport?: { width: number; height: number };
  headers?: Record<string, string>;
  degraded_above_ms?: number;
  degrade_on_console_errors?: boolean;
  degrade_on_failed_requests?: boolean;
  screenshot_on_failure?: boolean;
}

/** What a browser probe works with. */
export interface BrowserProbeContext {
  page: Page;
  context: BrowserContext;
  guard: BrowserGuard;
  /** Pre-filled with null for every documented field. */
  data: CheckData;
  /** Milliseconds left before the check's timeout. */
  remaining(): number;
  /** Status of the last main-document response (redirects followed); null before the first. */
  mainStatus(): number | null;
  /** Stores a screenshot with the result; returns its name, or null when the page could not be captured. */
  screenshot(name: string, fullPage?: boolean): Promise<string | null>;
  /** Words for what the check was doing, used in a timeout's error ("step 3 (click)"). */
  setActivity(text: string): void;
}

interface BrowserProbeOutcome {
  status: CheckStatus;
  error?: string;
}

export interface BrowserCheckDefinition<T extends BrowserCheckType, S extends TSchema> {
  type: T;
  configSchema: S;
  dataSchema: TObject;
  /**
   * Drives the page. Returns the outcome for what it judged; throws for anything that went wrong
   * with the target (the message becomes the error, status down; a Playwright timeout at the
   * check's deadline becomes status timeout).
   */
  probe(config: Static<S>, ctx: BrowserProbeContext): Promise<BrowserProbeOutcome>;
}

/** Seconds given to reading the page's title and URL and to the failure screenshot after the outcome. */
const AFTERWORD_MS = 3000;
const TIMEOUT = { timedOut: true } as const;

/** The first line of a Playwright error, without its call log. */
export function browserErrorText(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  const line = text.split("\n").find((l) => l.trim() !== "" && !l.startsWith("=")) ?? text;
  const clean = inWords(line.replace(/^[a-zA-Z.]+: /, "").trim());
  return clean.length > 500 ? `${clean.slice(0, 499)}…` : clean;
}

/** Chromium's certificate and TLS codes said in words, the code kept: "net::ERR_CERT_DATE_INVALID at <url>". */
const NET_ERROR_WORDS: Readonly<Record<string, string>> = {
  ERR_CERT_AUTHORITY_INVALID: "TLS certificate rejected: not issued by a trusted authority",
  ERR_CERT_DATE_INVALID: "TLS certificate rejected: expired or not yet valid",
  ERR_CERT_COMMON_NAME_INVALID: "TLS certificate rejected: it does not cover the host name",
  ERR_CERT_REVOKED: "TLS certificate rejected: revoked",
  ERR_CERT_INVALID: "TLS certificate rejected: not valid",
  ERR_SSL_PROTOCOL_ERROR: "TLS handshake failed: the server did not answer in TLS (plain text on this port?)",
  ERR_SSL_VERSION_OR_CIPHER_MISMATCH: "TLS handshake failed: no TLS version or cipher in common with the server",
};

function inWords(text: string): string {
  const m = /^net::(ERR_[A-Z_]+)(.*)$/.exec(text);
  const words = m ? NET_ERROR_WORDS[m[1]!] : undefined;
  return words ? `${words} (${m![1]})${m![2]}` : text;
}

const isTimeoutError = (err: unknown) => err instanceof Error && (err.name === "TimeoutError" || /Timeout \d+ms exceeded/.test(err.message));

function withTimeout<T>(work: Promise<T>, timeoutMs: number, fallback: T): Promise<T> {
  return Promise.race([work.catch(() => fallback), Bun.sleep(timeoutMs).then(() => fallback)]);
}

/**
 * Wraps a browser probe with what Lite and Flow share: a browser from the pool with a fresh
 * context, the private-address guard on every request, the deadline (status timeout), console
 * errors, failed and blocked requests, transfer size, the degrade rules, and a screenshot of a
 * down or timed-out page stored with the result.
 */
export function defineBrowserCheck<T extends BrowserCheckType, S extends TSchema>(def: BrowserCheckDefinition<T, S>): Check<S> & { readonly type: T } {
  const dataFields = describeFields(def.dataSchema);
  return {
    type: def.type,
    configSchema: def.configSchema,
    dataSchema: def.dataSchema,
    dataFields,
    run: (config, ctx) => runBrowserCheck(def, Object.keys(dataFields), config, ctx),
  };
}

async function runBrowserCheck<T extends BrowserCheckType, S extends TSchema>(def: BrowserCheckDefinition<T, S>, fields: string[], config: Static<S>, ctx: CheckContext): Promise<CheckResult> {
  if (ctx.signal?.aborted) throw new CheckAbortedError(def.type);
  const common = config as CommonConfig;
  const engine = common.engine ?? BROWSER_DEFAULTS.engine;
  if (!isEngine(engine)) throw new CheckUnavailableError(`unknown browser engine ${engine}`);
  const pool = ctx.browsers;
  if (!pool?.has(engine)) throw new CheckUnavailableError(`no ${engine} browser here (BROWSERS=${pool ? pool.engines.join(",") : "none"})`);

  const data: CheckData = {};
  for (const f of fields) data[f] = null;
  data.engine = engine;
  const artifacts: CheckArtifact[] = [];
  let started = performance.now();
  // Extra trusted CAs reach Chromium through the guard proxy's TLS relay (Firefox and WebKit keep their own store).
  const trustedCa = ctx.endpoints?.trustedCa;
  const relayTls = engine === "chromium" && (pool.relaysTls || (trustedCa?.length ?? 0) > 0) ? { extraCa: trustedCa } : undefined;
  const guard = await startBrowserGuard(ctx.guard, { loopbackStandIns: ctx.endpoints?.browserLoopbackStandIns, relayTls });
  try {
    return await pool.use(
      engine,
      async (lease) => {
        started = performance.now();
        return await drive(def, config, ctx, lease, guard, data, artifacts, started);
      },
      {
        signal: ctx.signal,
        // A check that cannot get a browser within its own timeout is a gap, not downtime.
        maxWaitMs: Math.max(ctx.timeoutMs, 5000),
        context: {
          proxy: { server: guard.proxyUrl },
          viewport: common.viewport ?? DEFAULT_VIEWPORT,
          extraHTTPHeaders: common.headers,
          serviceWorkers: "block",
          acceptDownloads: false,
          ignoreHTTPSErrors: false,
        },
      },
    );
  } catch (err) {
    if (!(err instanceof BrowserLostError)) throw err;
    if (err.reason === "closed") throw new CheckUnavailableError(err.message);
    const duration = ms(performance.now() - started);
    data.response_time = duration;
    return { status: "down", duration_ms: duration, error: err.message, data: { ...data, screenshots: artifacts.length > 0 ? artifacts.map((a) => a.name) : null }, ...(artifacts.length > 0 ? { artifacts } : {}) };
  } finally {
    guard.close();
  }
}

async function drive<T extends BrowserCheckType, S extends TSchema>(
  def: BrowserCheckDefinition<T, S>,
  config: Static<S>,
  ctx: CheckContext,
  lease: BrowserLease,
  guard: BrowserGuard,
  data: CheckData,
  artifacts: CheckArtifact[],
  started: number,
): Promise<CheckResult> {
  const common = config as CommonConfig;
  const deadline = started + ctx.timeoutMs;
  const remaining = () => Math.max(0, deadline - performance.now());
  await guard.install(lease.context);
  const page = await lease.context.newPage();
  page.setDefaultTimeout(ctx.timeoutMs);
  page.setDefaultNavigationTimeout(ctx.timeoutMs);
  const observation = observePage(page, (host) => guard.refusalFor(host) !== undefined);
  let mainStatus: number | null = null;
  // A new document request forgets the last one's status: a navigation that gets no answer leaves null, not the old page's.
  page.on("request", (req) => {
    try {
      if (req.isNavigationRequest() && req.frame() === page.mainFrame()) mainStatus = null;
    } catch {
      // A worker's request has no frame.
    }
  });
  page.on("response", (res) => {
    try {
      // The guard proxy's own 403/502 (refused, unreachable) is no status of the site's.
      if (res.request().isNavigationRequest() && res.frame() === page.mainFrame() && !res.headers()[PROXY_MARK_HEADER]) mainStatus = res.status();
    } catch {
      // A worker's response has no frame.
    }
  });
  let crashed = false;
  page.on("crash", () => (crashed = true));
  let activity = "loading the page";
  // A step's screenshot has what is left of the check's time (at least a second); the failure screenshot, taken after
  // the outcome, has the afterword's time even when none is left: a timed-out page's first frame after its loads
  // were stopped took over a second on a loaded machine, and the timeout's screenshot was lost.
  const screenshot = async (name: string, fullPage = false, atLeastMs = 1000) => {
    if (artifacts.some((a) => a.name === name)) return name;
    const shot = await captureScreenshot(page, name, { fullPage, timeoutMs: Math.min(5000, Math.max(atLeastMs, remaining())) });
    if (!shot) return null;
    artifacts.push(shot);
    return name;
  };
  const probeCtx: BrowserProbeContext = {
    page,
    context: lease.context,
    guard,
    data,
    remaining,
    mainStatus: () => mainStatus,
    screenshot,
    setActivity: (text) => (activity = text),
  };

  const work = def.probe(config, probeCtx).then(
    (outcome) => ({ outcome }),
    (err: unknown) => ({ err }),
  );
  const raced = await Promise.race([work, Bun.sleep(ctx.timeoutMs).then(() => TIMEOUT)]);
  const duration = ms(performance.now() - started);
  let status: CheckStatus;
  let error: string | undefined;
  if ("timedOut" in raced || ("err" in raced && isTimeoutError(raced.err) && remaining() < 50)) {
    status = "timeout";
    error = `not finished within ${ctx.timeoutMs} ms (${activity})`;
  } else if ("err" in raced) {
    status = "down";
    error = browserErrorText(raced.err);
  } else {
    ({ status, error } = raced.outcome);
  }
  // Out of time: stop the loads still pending, so the page can be read and captured.
  if (status === "timeout" && !crashed) await stopLoading(page, lease.engine);

  // What the page did, whatever the outcome.
  data.response_time = duration;
  data.final_url = page.url() === "about:blank" ? null : page.url();
  data.http_status = mainStatus;
  if (!crashed) data.title = (await withTimeout(page.title(), AFTERWORD_MS, "")) || null;
  const counts = observation.counts();
  data.console_errors = counts.consoleErrors;
  data.console_error_messages = observation.consoleErrors.length > 0 ? [...observation.consoleErrors] : null;
  data.failed_requests = counts.failedRequests;
  data.failed_request_details = observation.failedRequests.length > 0 ? [...observation.failedRequests] : null;
  const refused = guard.incidents.filter((i) => i.kind === "refused");
  data.blocked_requests = refused.length > 0 ? refused.slice(0, 10).map((i) => `${i.target}: ${i.message}`) : null;
  data.request_count = observation.requests();
  data.transfer_bytes = await observation.transferBytes(500);

  if (status === "up") {
    const degraded = degradeReason(common, duration, refused.length, counts);
    if (degraded) {
      status = "degraded";
      error = degraded;
    }
  }
  if ((status === "down" || status === "timeout") && common.screenshot_on_failure !== false && !crashed) await screenshot("failure", false, AFTERWORD_MS);
  const peak = lease.peakMemoryBytes();
  data.browser_memory_mb = peak === null ? null : Math.round((peak / 1048576) * 10) / 10;
  data.screenshots = artifacts.length > 0 ? artifacts.map((a) => a.name) : null;
  // A timed-out probe may still be winding down: hand out a copy it can no longer change.
  return { status, duration_ms: duration, ...(error !== undefined ? { error } : {}), data: structuredClone(data), ...(artifacts.length > 0 ? { artifacts: [...artifacts] } : {}) };
}

/** Why an otherwise passing check is degraded; undefined when it is not. */
function degradeReason(c: CommonConfig, durationMs: number, blocked: number, counts: { consoleErrors: number; failedRequests: number }): string | undefined {
  if (blocked > 0) return `the private-address guard refused ${blocked} request${blocked === 1 ? "" : "s"} of the page (see blocked_requests)`;
  if (counts.consoleErrors > 0 && (c.degrade_on_console_errors ?? BROWSER_DEFAULTS.degrade_on_console_errors)) {
    return `${counts.consoleErrors} console error${counts.consoleErrors === 1 ? "" : "s"} on the page (see console_error_messages)`;
  }
  if (counts.failedRequests > 0 && (c.degrade_on_failed_requests ?? BROWSER_DEFAULTS.degrade_on_failed_requests)) {
    return `${counts.failedRequests} request${counts.failedRequests === 1 ? "" : "s"} of the page failed (see failed_request_details)`;
  }
  if (c.degraded_above_ms !== undefined && durationMs > c.degraded_above_ms) return `the check took ${Math.round(durationMs)} ms, above degraded_above_ms ${c.degraded_above_ms}`;
  return undefined;
}
