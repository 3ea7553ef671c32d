import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { type JourneyEnv, SETUP_TIMEOUT_MS, signUpInBrowser, startJourney } from "./journey-support.ts";

let env: JourneyEnv;
const stamp = Date.now().toString(36);

beforeAll(async () => {
  env = await startJourney("overload-banner");
  await signUpInBrowser(env, "Olga", `olga-${stamp}@example.test`);
}, SETUP_TIMEOUT_MS);
afterAll(() => env?.stop(), 30_000);

/** What a scheduler leader writes every second while the local region is over capacity (scheduler/admission.ts). */
const overloaded = () => env.db.sql`
  insert into region_schedule_state (region, overloaded_since, lag_seconds, waiting, updated_at)
  values ('local', now() - interval '3 minutes', 21, 700, now())
  on conflict (region) do update set overloaded_since = excluded.overloaded_since, lag_seconds = 21, waiting = 700, updated_at = now()`;

describe("the overload banner", () => {
  it("tells signed-in users while the local region is over capacity, and goes away when it keeps up again", async () => {
    const { page } = env;
    await overloaded();
    // The scheduler of the running all-in-one rewrites the row only for regions it publishes to: keep ours fresh.
    const keep = setInterval(() => void overloaded().catch(() => {}), 2000);
    try {
      await page.reload();
      const banner = page.getByTestId("overload-banner");
      await banner.waitFor({ timeout: 30_000 });
      expect(await banner.textContent()).toContain("Checks are running late in Local.");
      expect(await banner.textContent()).toContain("every monitor is still checked, less often than its interval (the oldest waiting check is 21 s late)");
    } finally {
      clearInterval(keep);
    }
    await env.db.sql`update region_schedule_state set overloaded_since = null, lag_seconds = 0, waiting = 0, updated_at = now() where region = 'local'`;
    await page.getByTestId("overload-banner").waitFor({ state: "detached", timeout: 40_000 });
    expect(env.errors).toEqual([]);
  }, 120_000);
});
