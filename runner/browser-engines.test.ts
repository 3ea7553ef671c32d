import { describe, expect, it } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConfigError } from "../core/config/parse-env.ts";
import { assertBrowsersShipped } from "./browser-engines.ts";

describe("BROWSERS must match the engines the image ships", () => {
  it("accepts none without looking, and engines that are present", () => {
    const dir = mkdtempSync(join(tmpdir(), "wp-pw-"));
    try {
      mkdirSync(join(dir, "firefox-1466"));
      mkdirSync(join(dir, "webkit-2104"));
      expect(() => assertBrowsersShipped("none", { CHROMIUM_PATH: "/nonexistent" })).not.toThrow();
      expect(() => assertBrowsersShipped("firefox", { PLAYWRIGHT_BROWSERS_PATH: dir })).not.toThrow();
      expect(() => assertBrowsersShipped("all", { PLAYWRIGHT_BROWSERS_PATH: dir, CHROMIUM_PATH: process.execPath })).not.toThrow();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("refuses an engine the image does not ship, naming BROWSERS and where it looked", () => {
    const dir = mkdtempSync(join(tmpdir(), "wp-pw-"));
    try {
      mkdirSync(join(dir, "firefox-1466"));
      expect(() => assertBrowsersShipped("chromium", { CHROMIUM_PATH: "/nonexistent/chromium" })).toThrow(ConfigError);
      expect(() => assertBrowsersShipped("chromium", { CHROMIUM_PATH: "/nonexistent/chromium" })).toThrow(/BROWSERS="chromium".*chromium \(looked for \/nonexistent\/chromium\)/);
      expect(() => assertBrowsersShipped("all", { PLAYWRIGHT_BROWSERS_PATH: dir, CHROMIUM_PATH: process.execPath })).toThrow(/does not ship webkit/);
      expect(() => assertBrowsersShipped("webkit", { PLAYWRIGHT_BROWSERS_PATH: join(dir, "missing") })).toThrow(/BROWSERS="webkit"/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
