/**
 * Visual check: screenshots of every dashboard route at 1440×900, 1280×800 and 390×844, light and dark, into one folder.
 *
 * Starts the real all-in-one on its own database (dropped after), signs a person up, fills the organisation
 * with one of everything (`seedEverything`), then opens each route of the router (`dashboardUrls`) and the
 * signed-out screens. Names: `<width>x<height>-<theme>-<route>.png`. Prints the routes whose page scrolls
 * sideways at that size. Not part of the suite: run it and look at the pictures.
 *
 * Usage: bun tests/web/screens.ts [--out test-artifacts/screens] [--only /monitors,/org]   (npm run screens)
 */
import { mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { ARTIFACTS } from "./browser.ts";
import { signUpInBrowser, startJourney } from "./journey-support.ts";
import { dashboardUrls, horizontalOverflow, openScreen, seedEverything, VISIT_ENV } from "./route-visits.ts";

const { values: args } = parseArgs({ options: { out: { type: "string" }, only: { type: "string" } } });
const out = resolve(args.out ?? join(ARTIFACTS, "screens"));
const only = args.only?.split(",").map((s) => s.trim());
const SIZES = [
  { width: 1440, height: 900 },
  { width: 1280, height: 800 },
  { width: 390, height: 844 },
] as const;
const THEMES = ["light", "dark"] as const;
const SIGNED_OUT = ["/signin", "/signup", "/password-reset"];
const fileName = (url: string, words: [string, string][] = []) =>
  words.reduce((u, [id, word]) => u.replaceAll(id, word), url).replace(/^\//, "").replace(/[^a-z0-9]+/gi, "-") || "root";

mkdirSync(out, { recursive: true });
const target = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("ok") });
const env = await startJourney("screens", VISIT_ENV);
let shots = 0;
const wide: string[] = [];
try {
  await signUpInBrowser(env, "Alice Example", `alice-${Date.now()}@example.com`);
  const seeded = await seedEverything(env, `http://127.0.0.1:${target.port}/`);
  // Files are named for what is on them, not for this run's ids.
  const words: [string, string][] = [
    [seeded.monitorId, "http-monitor"],
    [seeded.heartbeatId, "heartbeat-monitor"],
    [seeded.checkId, "result"],
    [seeded.statusPageId, "page"],
    [seeded.incidentId, "incident"],
  ];
  const urls = dashboardUrls(seeded).filter((u) => !only || only.some((o) => u === o || u.startsWith(`${o}/`)));
  const { page } = env;
  const shoot = async (url: string, size: (typeof SIZES)[number], theme: string) => {
    const name = `${size.width}x${size.height}-${theme}-${fileName(url, words)}.png`;
    await page.screenshot({ path: join(out, name), fullPage: true });
    shots++;
    const { overflow } = await horizontalOverflow(page);
    if (overflow > 0) wide.push(`${name}: ${overflow} px wider than the screen`);
  };
  for (const size of SIZES) {
    await page.setViewportSize(size);
    for (const theme of THEMES) {
      await page.evaluate((t) => localStorage.setItem("wp_theme", t), theme);
      for (const url of urls) {
        try {
          await openScreen(page, env.base, url);
          await shoot(url, size, theme);
        } catch (err) {
          console.error(`${url} (${size.width}px, ${theme}): ${err instanceof Error ? err.message.split("\n")[0] : err}`);
        }
      }
    }
  }
  await page.context().clearCookies();
  for (const size of SIZES) {
    await page.setViewportSize(size);
    for (const theme of THEMES) {
      await page.evaluate((t) => localStorage.setItem("wp_theme", t), theme);
      for (const url of SIGNED_OUT) {
        await page.goto(`${env.base}${url}`);
        await page.locator("h1, h2").first().waitFor();
        await shoot(url, size, theme);
      }
    }
  }
} finally {
  await env.stop();
  target.stop(true);
}
console.log(`${shots} screenshots in ${out}`);
if (wide.length) console.log(`scrolls sideways:\n  ${wide.join("\n  ")}`);
