import { describe, expect, it } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { resolveConnection } from "./client.ts";
import { writeCredentials } from "./credentials.ts";

const loggedIn = () => {
  const env = { XDG_CONFIG_HOME: mkdtempSync(join(tmpdir(), "wp-cli-")) };
  writeCredentials({ url: "https://prod.example.com", api_key: "wp_live_prod_key" }, env);
  return env;
};

describe("resolveConnection", () => {
  it("never sends the stored key to another server named by WATCHPOST_URL alone", () => {
    const env = { ...loggedIn(), WATCHPOST_URL: "http://127.0.0.1:18083" };
    expect(() => resolveConnection(env)).toThrow(/WATCHPOST_API_KEY/);
  });

  it("uses the stored key with WATCHPOST_URL naming the server it was stored for", () => {
    const env = { ...loggedIn(), WATCHPOST_URL: "https://prod.example.com/" };
    expect(resolveConnection(env)).toEqual({ url: "https://prod.example.com", apiKey: "wp_live_prod_key" });
  });

  it("uses WATCHPOST_URL and WATCHPOST_API_KEY together, and the stored login alone", () => {
    expect(resolveConnection({ ...loggedIn(), WATCHPOST_URL: "http://127.0.0.1:3311", WATCHPOST_API_KEY: "wp_live_ci" })).toEqual({ url: "http://127.0.0.1:3311", apiKey: "wp_live_ci" });
    expect(resolveConnection(loggedIn())).toEqual({ url: "https://prod.example.com", apiKey: "wp_live_prod_key" });
  });
});
