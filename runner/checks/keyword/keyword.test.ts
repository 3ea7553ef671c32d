import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { runCheckContract } from "../contract.ts";
import { startHttpTarget, type HttpTarget } from "../test-support/http-target.ts";
import { closedPort, startSilentServer, type Stoppable } from "../test-support/loopback-servers.ts";
import type { CheckContext } from "../types.ts";
import { keywordCheck } from "./keyword.ts";
import type { KeywordConfig } from "./keyword-schema.ts";

let target: HttpTarget;
let silent: Stoppable;
let refusedPort: number;

beforeAll(async () => {
  target = startHttpTarget();
  silent = await startSilentServer();
  refusedPort = await closedPort();
});

afterAll(async () => {
  await Promise.all([target.stop(), silent.stop()]);
});

const ctx: CheckContext = { timeoutMs: 5000, guard: { allowPrivate: true, ipv6: false } };
const run = (config: Omit<KeywordConfig, "url"> & { url?: string }) => keywordCheck.run({ url: `${target.url}/`, ...config }, ctx);

runCheckContract(keywordCheck, {
  reachable: () => ({ url: `${target.url}/`, keyword: "Watchpost" }),
  failing: () => ({ url: `http://127.0.0.1:${refusedPort}/`, keyword: "Watchpost" }),
  hanging: () => ({ url: `http://127.0.0.1:${silent.port}/`, keyword: "Watchpost" }),
  invalid: [{ url: "http://x.test/" }, { url: "http://x.test/", keyword: "" }, { url: "http://x.test/", keyword: "a", mode: "maybe" }],
});

describe("keyword check", () => {
  it("reports up when the keyword is present, ignoring case by default", async () => {
    const result = await run({ keyword: "hello from the WATCHPOST" });
    expect(result.status).toBe("up");
    expect(result.data.keyword_found).toBe(true);
    expect(result.data.status_code).toBe(200);
  });

  it("reports down when the keyword is missing", async () => {
    const result = await run({ keyword: "Welcome back" });
    expect(result.status).toBe("down");
    expect(result.error).toBe('keyword "Welcome back" not found in the response body');
    expect(result.data.keyword_found).toBe(false);
  });

  it("compares case when case_sensitive is set", async () => {
    expect((await run({ keyword: "watchpost", case_sensitive: true })).status).toBe("down");
    expect((await run({ keyword: "Watchpost", case_sensitive: true })).status).toBe("up");
  });

  it("reports up in absent mode when the keyword is missing, and down when it is there", async () => {
    expect((await run({ keyword: "Internal Server Error", mode: "absent" })).status).toBe("up");
    const present = await run({ keyword: "Watchpost", mode: "absent" });
    expect(present.status).toBe("down");
    expect(present.error).toContain("found in the response body");
  });

  it("reports down for an unexpected status even when the keyword is present", async () => {
    const result = await run({ url: `${target.url}/status/500`, keyword: "status" });
    expect(result.status).toBe("down");
    expect(result.error).toContain("unexpected status 500");
    expect(result.data.keyword_found).toBe(true);
  });

  it("searches the keyword after following redirects", async () => {
    const result = await run({ url: `${target.url}/redirect/2`, keyword: "test target" });
    expect(result.status).toBe("up");
    expect(result.data.redirects).toBe(2);
  });
});
