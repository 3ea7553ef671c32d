import { describe, expect, it } from "bun:test";
import { ConfigError } from "../core/config/parse-env.ts";
import { browserEngines, loadRunnerConfig } from "./config.ts";

const base = { SERVICE_API_URL: "https://api.example.test", SERVICE_TOKEN: "rt_abc" };

describe("runner config", () => {
  it("applies the spec's defaults", () => {
    expect(loadRunnerConfig(base)).toEqual({
      ...base,
      RUNNER_NAME: "service-runner",
      RUNNER_REGION: "unknown",
      RUNNER_MODE: "persistent",
      POLL_INTERVAL_MS: 5000,
      HEARTBEAT_INTERVAL_MS: 30000,
      CONCURRENCY: 10,
      BROWSERS: "none",
      BROWSER_POOL_SIZE: 2,
      ALLOW_PRIVATE_IPS: false,
      LOG_LEVEL: "info",
      LOG_FORMAT: "auto",
      ALLOW_UNENCRYPTED_SESSION: false,
    });
  });

  it("accepts the bounds themselves", () => {
    const c = loadRunnerConfig({ ...base, POLL_INTERVAL_MS: "1000", HEARTBEAT_INTERVAL_MS: "5000", CONCURRENCY: "100", BROWSER_POOL_SIZE: "20", BROWSERS: "all", ALLOW_PRIVATE_IPS: "yes" });
    expect([c.POLL_INTERVAL_MS, c.HEARTBEAT_INTERVAL_MS, c.CONCURRENCY, c.BROWSER_POOL_SIZE, c.ALLOW_PRIVATE_IPS]).toEqual([1000, 5000, 100, 20, true]);
    expect(loadRunnerConfig({ ...base, CONCURRENCY: "1", BROWSER_POOL_SIZE: "1" }).CONCURRENCY).toBe(1);
  });

  it("names the variable of every bad value and never prints the token", () => {
    const bad: Record<string, string>[] = [
      { SERVICE_API_URL: "http://api.example.test" },
      { SERVICE_API_URL: "ftp://api.example.test" },
      { SERVICE_TOKEN: "wp_live_secretsecret" },
      { POLL_INTERVAL_MS: "999" },
      { HEARTBEAT_INTERVAL_MS: "4999" },
      { CONCURRENCY: "101" },
      { CONCURRENCY: "1e2" },
      { BROWSER_POOL_SIZE: "21" },
      { BROWSERS: "chrome" },
      { RUNNER_MODE: "managed" },
      { LOG_LEVEL: "loud" },
    ];
    for (const change of bad) {
      const name = Object.keys(change)[0]!;
      let message = "";
      try {
        loadRunnerConfig({ ...base, ...change });
      } catch (err) {
        expect(err).toBeInstanceOf(ConfigError);
        message = (err as Error).message;
      }
      expect(message).toContain(name);
      expect(message).not.toContain("secretsecret");
    }
  });

  it("maps BROWSERS to engines", () => {
    expect(browserEngines("none")).toEqual([]);
    expect(browserEngines("webkit")).toEqual(["webkit"]);
    expect(browserEngines("all")).toEqual(["chromium", "firefox", "webkit"]);
  });
});
