/** A keyword_missing rule checks its own keyword: results of a check that looked for another keyword say nothing about it. */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { keywordCheck } from "../../runner/checks/keyword/keyword.ts";
import type { KeywordConfig } from "../../runner/checks/keyword/keyword-schema.ts";
import { type HttpTarget, startHttpTarget } from "../../runner/checks/test-support/http-target.ts";
import type { CheckContext } from "../../runner/checks/types.ts";
import { evaluateCondition } from "./conditions.ts";

let target: HttpTarget;
beforeAll(() => {
  target = startHttpTarget();
});
afterAll(async () => {
  await target.stop();
});

const ctx: CheckContext = { timeoutMs: 5000, guard: { allowPrivate: true, ipv6: false } };
/** The verdict of a keyword_missing rule on the result of a keyword monitor (the target's body says "Hello from the Watchpost test target"). */
async function verdict(monitor: Omit<KeywordConfig, "url">, ruleKeyword: string) {
  const r = await keywordCheck.run({ url: `${target.url}/`, ...monitor }, ctx);
  return evaluateCondition({ type: "keyword_missing", keyword: ruleKeyword }, { status: r.status, duration_ms: r.duration_ms, data: r.data as Record<string, unknown> }, {}).verdict;
}

describe("keyword_missing evaluates the rule's keyword", () => {
  it("does not fire on a monitor that looked for another keyword, even when that one is missing", async () => {
    expect(await verdict({ keyword: "Welcome back" }, "Watchpost")).toBe("unknown");
    expect(await verdict({ keyword: "Watchpost" }, "Welcome back")).toBe("unknown");
  });

  it("fires and clears on the monitor's result when the monitor looks for the rule's keyword", async () => {
    expect(await verdict({ keyword: "Welcome back" }, "Welcome back")).toBe("holds");
    expect(await verdict({ keyword: "Watchpost" }, "Watchpost")).toBe("passes");
  });

  it("matches the keyword the way the check compared it (case-insensitively unless case_sensitive)", async () => {
    expect(await verdict({ keyword: "WATCHPOST" }, "watchpost")).toBe("passes");
    expect(await verdict({ keyword: "WATCHPOST", case_sensitive: true }, "watchpost")).toBe("unknown");
  });
});
