/**
 * The CLI as a machine without a checkout gets it: one file from the server it talks to (GET /cli/watchpost.js), run
 * with `bun`, in a folder with no node_modules. `watchpost` is not published to a package registry, so this is the
 * way the docs' CI jobs take it.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { makeOrg, startTestApi, type TestApi } from "../support/api.ts";
import { cliHome } from "./support/run-cli.ts";

let api: TestApi;
const home = cliHome();

beforeAll(async () => {
  api = await startTestApi({ ALLOW_PRIVATE_IPS: "true" });
}, 60_000);
afterAll(() => api.stop(), 60_000);

async function run(args: string[], env: Record<string, string> = {}) {
  const p = Bun.spawn(["bun", join(home.dir, "watchpost.js"), ...args], {
    cwd: home.dir,
    env: { PATH: process.env.PATH ?? "", HOME: home.configHome, XDG_CONFIG_HOME: home.configHome, NO_COLOR: "1", ...env },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  return { stdout, stderr, code };
}

describe("the CLI downloaded from the server", () => {
  it("is one file that runs with bun outside a checkout: help, validate of a watchpost.config.ts, plan and apply", async () => {
    const res = await fetch(`${api.url}/cli/watchpost.js`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("javascript");
    const text = await res.text();
    expect(text.startsWith("#!/usr/bin/env bun")).toBe(true);
    writeFileSync(join(home.dir, "watchpost.js"), text);

    const help = await run(["--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("Usage: watchpost");

    // A TypeScript config imports defineConfig from "watchpost/config", which no package provides in this folder.
    writeFileSync(
      join(home.dir, "watchpost.config.ts"),
      `import { defineConfig } from "watchpost/config";
export default defineConfig({ version: 1, monitors: [{ key: "shop", name: "Shop", type: "http", config: { url: "http://127.0.0.1:9/" }, interval_seconds: 300 }] });
`,
    );
    const valid = await run(["validate"]);
    expect(valid.stderr).toBe("");
    expect(valid.code).toBe(0);

    const o = await makeOrg(api.sql, "business");
    const env = { WATCHPOST_URL: api.url, WATCHPOST_API_KEY: o.api_key };
    const plan = await run(["plan", "--detailed-exitcode"], env);
    expect(plan.code).toBe(3);
    expect(plan.stdout).toContain("shop");
    const apply = await run(["apply", "--json"], env);
    expect(apply.code).toBe(0);
    const list = await run(["monitors", "list", "--json"], env);
    expect(JSON.parse(list.stdout).data.map((m: { name: string }) => m.name)).toEqual(["Shop"]);
  }, 60_000);

  it("answers another path under /cli with the JSON 404, not the dashboard", async () => {
    const res = await fetch(`${api.url}/cli/other.js`, { headers: { accept: "text/html" } });
    expect(res.status).toBe(404);
    expect((await res.json()).code).toBe("NOT_FOUND");
  });
});
