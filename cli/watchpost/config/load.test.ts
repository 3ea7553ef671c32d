import { describe, expect, it } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig, validateConfig } from "./load.ts";

const file = (text: string) => {
  const path = join(mkdtempSync(join(tmpdir(), "wp-load-")), "watchpost.yaml");
  writeFileSync(path, text);
  return path;
};

describe("loadConfig", () => {
  it("takes YAML merge keys, the usual way to share settings between entries", async () => {
    const state = await loadConfig(
      file(`version: 1
monitors:
  - &web
    key: shop
    name: Shop
    type: http
    config: { url: "https://shop.example" }
    interval_seconds: 60
  - <<: *web
    key: blog
    name: Blog
    config: { url: "https://blog.example" }
`),
    );
    expect(state.monitors.map((m) => [m.key, m.interval_seconds, (m.config as { url: string }).url])).toEqual([
      ["shop", 60, "https://shop.example"],
      ["blog", 60, "https://blog.example"],
    ]);
  });
});

describe("validateConfig", () => {
  it("names a shell-style reference, which would be sent as written", async () => {
    const issues = validateConfig({ version: 1, monitors: [{ key: "shop", name: "Shop", type: "http", config: { url: "https://shop.example", headers: { Authorization: "Bearer ${API_TOKEN:-dev}" } } }] });
    expect(issues).toEqual([{ path: "monitors[0].config.headers.Authorization", message: "${API_TOKEN:-dev} is not replaced: only ${NAME} is (set the variable, or write the value)" }]);
    expect(validateConfig({ version: 1, monitors: [{ key: "shop", name: "Shop", type: "http", config: { url: "https://shop.example", headers: { Authorization: "Bearer ${API_TOKEN}" } } }] })).toEqual([]);
  });
});
