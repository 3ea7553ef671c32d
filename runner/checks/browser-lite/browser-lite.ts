import { defineBrowserCheck } from "../browser/define-browser-check.ts";
import { assertFromTarget, navigationError } from "../browser/navigation.ts";
import { statusMatcher } from "../http/expected-status.ts";
import { ms } from "../shared/timing.ts";
import { browserLiteDataSchema } from "./browser-lite-schema.ts";
import { BROWSER_LITE_DEFAULTS, browserLiteConfigSchema } from "./browser-lite-schema.ts";

interface NavigationTimings {
  ttfb: number | null;
  dcl: number | null;
  load: number | null;
  lcp: number | null;
}

/** Runs in the page: Navigation Timing and, where the engine has it, largest contentful paint. */
async function readTimings(): Promise<NavigationTimings> {
  const nav = performance.getEntriesByType("navigation")[0] as PerformanceNavigationTiming | undefined;
  let lcp: number | null = null;
  try {
    lcp = await new Promise<number | null>((resolve) => {
      new PerformanceObserver((list) => {
        const entries = list.getEntries();
        resolve(entries.length > 0 ? entries[entries.length - 1]!.startTime : null);
      }).observe({ type: "largest-contentful-paint", buffered: true });
      setTimeout(() => resolve(null), 100);
    });
  } catch {
    lcp = null;
  }
  const positive = (v: number | undefined) => (v && v > 0 ? v : null);
  return { ttfb: positive(nav?.responseStart), dcl: positive(nav?.domContentLoadedEventEnd), load: positive(nav?.loadEventEnd), lcp };
}

/** Browser Lite: load one URL in a real browser, then judge the answer, the page's text and what it did. */
export const browserLiteCheck = defineBrowserCheck({
  type: "browser_lite",
  configSchema: browserLiteConfigSchema,
  dataSchema: browserLiteDataSchema,
  async probe(config, ctx) {
    const waitUntil = config.wait_until ?? BROWSER_LITE_DEFAULTS.wait_until;
    ctx.setActivity(`waiting for the page's ${waitUntil}`);
    let response;
    try {
      response = await ctx.page.goto(config.url, { waitUntil, timeout: ctx.remaining() });
    } catch (err) {
      throw navigationError(err, config.url, ctx.guard);
    }
    assertFromTarget(response, config.url, ctx.guard);
    ctx.setActivity("reading navigation timings");
    const t = await ctx.page.evaluate(readTimings).catch(() => null);
    if (t) {
      ctx.data.ttfb_ms = t.ttfb === null ? null : ms(t.ttfb);
      ctx.data.dom_content_loaded_ms = t.dcl === null ? null : ms(t.dcl);
      ctx.data.load_ms = t.load === null ? null : ms(t.load);
      ctx.data.lcp_ms = t.lcp === null ? null : ms(t.lcp);
    }
    const status = ctx.mainStatus() ?? response?.status() ?? null;
    const expected = config.expected_status ?? BROWSER_LITE_DEFAULTS.expected_status;
    if (status !== null && !statusMatcher(expected)(status)) return { status: "down", error: `unexpected status ${status} (expected ${expected.join(", ")})` };
    if (config.keyword !== undefined) {
      ctx.setActivity("reading the page's text");
      const text = await ctx.page.evaluate(() => document.body?.innerText ?? "");
      const found = text.includes(config.keyword);
      ctx.data.keyword_found = found;
      ctx.data.keyword = config.keyword;
      ctx.data.keyword_case_sensitive = true;
      if (!found) return { status: "down", error: `keyword not found in the rendered page: ${JSON.stringify(config.keyword)}` };
    }
    return { status: "up" };
  },
});
