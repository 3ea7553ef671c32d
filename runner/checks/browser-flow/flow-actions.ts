import type { Locator } from "playwright-core";
import type { BrowserProbeContext } from "../browser/define-browser-check.ts";
import { assertFromTarget, navigationError } from "../browser/navigation.ts";
import { statusMatcher } from "../http/expected-status.ts";
import type { FlowAction, FlowStepOf } from "./browser-flow-schema.ts";

/** A step that did not hold: its message is the step's error; the flow stops there. */
class StepFailedError extends Error {
  override readonly name = "StepFailedError";
}

/** What a running flow carries from step to step. */
export interface FlowState {
  probe: BrowserProbeContext;
  /** Values read by extract_text, by variable name. */
  vars: Map<string, string>;
  /** Headers sent with every request (config.headers, then set_header steps). */
  headers: Record<string, string>;
  /** The flow's start URL: relative navigations and cookies without a domain fall back to it. */
  startUrl: string;
  /** Position of the running step, from 1. */
  index: number;
  /** This step's time budget, ms. */
  timeoutMs: number;
}

/** Runs one step; resolves with what it saw (for the result's `detail`), or throws. */
type ActionImpl<A extends FlowAction> = (step: FlowStepOf<A>, s: FlowState) => Promise<string | null>;

const PLACEHOLDER = /\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g;
const cut = (s: string, n = 200) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

/** Fills {{variable}} placeholders; an unknown variable fails the step. */
function substitute(template: string, vars: Map<string, string>): string {
  return template.replace(PLACEHOLDER, (_, name: string) => {
    const value = vars.get(name);
    if (value === undefined) throw new StepFailedError(`unknown variable {{${name}}}: no earlier extract_text step set it`);
    return value;
  });
}

/** contains / exact / glob comparison; glob is turned into an anchored expression of literals, * and ?. */
export function matches(actual: string, expected: string, mode: "contains" | "exact" | "glob" = "contains"): boolean {
  if (mode === "exact") return actual === expected;
  if (mode === "contains") return actual.includes(expected);
  const source = expected.replace(/[.+^${}()|[\]\\]/g, "\\$&").replaceAll("*", ".*").replaceAll("?", ".");
  return new RegExp(`^${source}$`, "s").test(actual);
}

/** Re-evaluates `check` until it returns null (holds) or the budget ends; then fails with its last complaint. */
async function until(s: FlowState, check: () => Promise<string | null>): Promise<void> {
  const end = performance.now() + s.timeoutMs;
  let complaint: string | null = "not checked";
  for (;;) {
    complaint = await check().catch((err: unknown) => (err instanceof Error ? err.message.split("\n")[0]! : String(err)));
    if (complaint === null) return;
    const left = end - performance.now();
    if (left <= 0) break;
    await Bun.sleep(Math.min(100, left));
  }
  throw new StepFailedError(`${complaint} (after ${s.timeoutMs} ms)`);
}

const locate = (s: FlowState, selector: string): Locator => s.probe.page.locator(substitute(selector, s.vars)).first();
const pageText = async (s: FlowState, selector?: string) =>
  selector ? locate(s, selector).innerText({ timeout: Math.min(1000, s.timeoutMs) }) : s.probe.page.evaluate(() => document.body?.innerText ?? "");

function resolveUrl(s: FlowState, raw: string): string {
  const value = substitute(raw, s.vars);
  const current = s.probe.page.url();
  const base = current.startsWith("http") ? current : s.startUrl;
  let url: URL;
  try {
    url = new URL(value, base);
  } catch {
    throw new StepFailedError(`not a URL: ${JSON.stringify(cut(value))}`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new StepFailedError(`only http and https URLs can be opened, not ${url.protocol}`);
  return url.href;
}

/** Every step type's implementation: one fixed Playwright call each. A missing one fails type-checking. */
export const flowActions: { [A in FlowAction]: ActionImpl<A> } = {
  async navigate(step, s) {
    const url = resolveUrl(s, step.url);
    let response;
    try {
      response = await s.probe.page.goto(url, { waitUntil: step.wait_until ?? "load", timeout: s.timeoutMs });
    } catch (err) {
      throw navigationError(err, url, s.probe.guard);
    }
    assertFromTarget(response, url, s.probe.guard);
    return `HTTP ${s.probe.mainStatus() ?? response?.status() ?? "?"}`;
  },
  async click(step, s) {
    await locate(s, step.selector).click({ button: step.button ?? "left", clickCount: step.click_count ?? 1, timeout: s.timeoutMs });
    return null;
  },
  async fill(step, s) {
    await locate(s, step.selector).fill(substitute(step.value, s.vars), { timeout: s.timeoutMs });
    return null;
  },
  async select(step, s) {
    const chosen = await locate(s, step.selector).selectOption(substitute(step.value, s.vars), { timeout: s.timeoutMs });
    return chosen.length > 0 ? `selected ${chosen.join(", ")}` : null;
  },
  async press(step, s) {
    if (step.selector) await locate(s, step.selector).press(step.key, { timeout: s.timeoutMs });
    else await s.probe.page.keyboard.press(step.key);
    return null;
  },
  async wait_for_selector(step, s) {
    await locate(s, step.selector).waitFor({ state: step.state ?? "visible", timeout: s.timeoutMs });
    return null;
  },
  async wait_for_text(step, s) {
    const text = substitute(step.text, s.vars);
    await until(s, async () => ((await pageText(s, step.selector)).includes(text) ? null : `text ${JSON.stringify(cut(text))} did not appear`));
    return null;
  },
  async wait_for_url(step, s) {
    const expected = substitute(step.url, s.vars);
    await until(s, async () => (matches(s.probe.page.url(), expected, step.match) ? null : `URL is ${s.probe.page.url()}, waited for ${step.match ?? "contains"} ${JSON.stringify(expected)}`));
    return s.probe.page.url();
  },
  async assert_text(step, s) {
    const text = substitute(step.text, s.vars);
    const mode = step.match ?? "contains";
    await until(s, async () => {
      const actual = await pageText(s, step.selector);
      if (mode === "not_contains") return actual.includes(text) ? `the ${step.selector ? "element" : "page"} contains ${JSON.stringify(cut(text))}` : null;
      if (mode === "exact") return actual.trim() === text ? null : `expected text ${JSON.stringify(cut(text))}, found ${JSON.stringify(cut(actual.trim()))}`;
      return actual.includes(text) ? null : `expected the ${step.selector ? "element" : "page"} to contain ${JSON.stringify(cut(text))}`;
    });
    return null;
  },
  async assert_visible(step, s) {
    const want = step.visible ?? true;
    const locator = locate(s, step.selector);
    await until(s, async () => ((await locator.isVisible()) === want ? null : `${step.selector} is ${want ? "not visible" : "visible"}`));
    return null;
  },
  async assert_url(step, s) {
    const expected = substitute(step.url, s.vars);
    await until(s, async () => (matches(s.probe.page.url(), expected, step.match) ? null : `URL is ${s.probe.page.url()}, expected ${step.match ?? "contains"} ${JSON.stringify(expected)}`));
    return s.probe.page.url();
  },
  async assert_title(step, s) {
    const expected = substitute(step.title, s.vars);
    let title = "";
    await until(s, async () => {
      title = await s.probe.page.title();
      return matches(title, expected, step.match) ? null : `title is ${JSON.stringify(cut(title))}, expected ${step.match ?? "contains"} ${JSON.stringify(expected)}`;
    });
    return cut(title);
  },
  async assert_status(step, s) {
    const status = s.probe.mainStatus();
    if (status === null) throw new StepFailedError("no page has been loaded yet");
    if (!statusMatcher(step.expected)(status)) throw new StepFailedError(`the page answered HTTP ${status}, expected ${step.expected.join(", ")}`);
    return `HTTP ${status}`;
  },
  async extract_text(step, s) {
    const locator = locate(s, step.selector);
    await locator.waitFor({ state: "attached", timeout: s.timeoutMs });
    const raw = step.attribute ? await locator.getAttribute(step.attribute, { timeout: s.timeoutMs }) : await locator.innerText({ timeout: s.timeoutMs });
    if (raw === null) throw new StepFailedError(`${step.selector} has no attribute ${step.attribute}`);
    const value = raw.trim();
    s.vars.set(step.variable, value);
    return `${step.variable}=${cut(value)}`;
  },
  async screenshot(step, s) {
    const name = step.screenshot_name ?? `step-${s.index}`;
    const stored = await s.probe.screenshot(name, step.full_page ?? false);
    if (!stored) throw new StepFailedError("the page could not be captured");
    return stored;
  },
  async set_viewport(step, s) {
    await s.probe.page.setViewportSize({ width: step.width, height: step.height });
    return `${step.width}×${step.height}`;
  },
  async set_header(step, s) {
    s.headers[step.header] = substitute(step.value, s.vars);
    await s.probe.context.setExtraHTTPHeaders(s.headers);
    return step.header;
  },
  async set_cookie(step, s) {
    const value = substitute(step.value, s.vars);
    const current = s.probe.page.url();
    const where = step.domain ? { domain: step.domain, path: step.path ?? "/" } : { url: new URL(step.path ?? "/", current.startsWith("http") ? current : s.startUrl).href };
    await s.probe.context.addCookies([{ name: step.cookie, value, ...where, secure: step.secure ?? false, httpOnly: step.http_only ?? false }]);
    return step.cookie;
  },
};
