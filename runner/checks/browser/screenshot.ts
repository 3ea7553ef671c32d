import type { Page } from "playwright-core";
import type { CheckArtifact } from "../types.ts";

/** Largest screenshot kept with a result; bigger ones are retaken at a lower quality, then given up. */
const MAX_SCREENSHOT_BYTES = 400 * 1024;

/**
 * A JPEG of the page (the viewport, or the whole page), small enough to store with a result and
 * to send in a runner's result batch; null when the page cannot be captured (crashed, closed).
 */
export async function captureScreenshot(page: Page, name: string, o: { fullPage?: boolean; timeoutMs?: number } = {}): Promise<CheckArtifact | null> {
  for (const quality of [60, 30]) {
    let data: Buffer;
    try {
      data = await page.screenshot({ type: "jpeg", quality, fullPage: o.fullPage ?? false, timeout: o.timeoutMs ?? 3000, animations: "disabled", caret: "hide" });
    } catch {
      return null;
    }
    if (data.length <= MAX_SCREENSHOT_BYTES) return { name, content_type: "image/jpeg", data: new Uint8Array(data) };
    // A tall full page is the usual cause: fall back to the viewport before lowering quality further.
    if (o.fullPage) return captureScreenshot(page, name, { ...o, fullPage: false });
  }
  return null;
}

/**
 * Stops whatever the page is still loading, so a timed-out page can be captured (a screenshot
 * waits for a frame, which a navigation that never answers never produces). Chromium through
 * the DevTools protocol; the other engines through window.stop(), when the page can run it.
 */
export async function stopLoading(page: Page, engine: string): Promise<void> {
  const attempt =
    engine === "chromium"
      ? page
          .context()
          .newCDPSession(page)
          .then(async (cdp) => {
            await cdp.send("Page.stopLoading");
            await cdp.detach().catch(() => {});
          })
      : page.evaluate(() => window.stop());
  await Promise.race([attempt.catch(() => {}), Bun.sleep(1000)]);
}
