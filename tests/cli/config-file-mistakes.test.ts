import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { client, makeOrg, startTestApi, type TestApi } from "../support/api.ts";
import { cliHome, runCli } from "./support/run-cli.ts";

let api: TestApi;
const home = cliHome();

beforeAll(async () => {
  api = await startTestApi();
}, 60_000);
afterAll(async () => {
  await api.stop();
}, 60_000);

async function org() {
  const o = await makeOrg(api.sql, "business");
  const dir = join(home.dir, o.org_id);
  mkdirSync(dir, { recursive: true });
  const cli = (args: string[]) => runCli(args, { env: { WATCHPOST_URL: api.url, WATCHPOST_API_KEY: o.api_key }, cwd: dir, configHome: home.configHome });
  const write = (content: string | Uint8Array, name = "watchpost.yaml") => writeFileSync(join(dir, name), content);
  const monitors = async () => (await client(api.url, { key: o.api_key })("GET", "/api/v1/monitors?limit=100")).body.data as { name: string }[];
  return { cli, write, monitors };
}

const issuesOf = (stderr: string) => (JSON.parse(stderr) as { details: { issues: { path: string; message: string }[] } }).details.issues;

describe("config file mistakes a user makes", () => {
  it("refuses a file that is not UTF-8, naming the file and the line, and stores nothing", async () => {
    const o = await org();
    // "Café" saved as Latin-1 by an old editor: the é is the single byte 0xE9.
    const latin1 = Buffer.concat([Buffer.from('version: 1\nmonitors:\n  - key: cafe\n    name: "Caf'), Buffer.from([0xe9]), Buffer.from('"\n    type: tcp\n    config: { host: db.example, port: 5432 }\n')]);
    o.write(latin1);
    for (const command of ["validate", "plan", "apply"]) {
      const run = await o.cli([command]);
      expect(run.code).toBe(1);
      expect(run.stderr).toContain("watchpost.yaml");
      expect(run.stderr).toContain("not valid UTF-8");
      expect(run.stderr).toContain("line 4");
    }
    expect(await o.monitors()).toEqual([]);
  }, 60_000);

  it("says an empty file is empty, naming it and what it must hold", async () => {
    const o = await org();
    for (const [name, content, said] of [
      ["watchpost.yaml", "", "is empty"],
      ["watchpost.yaml", "\n  \n", "is empty"],
      ["watchpost.yaml", "# monitors come later\n", "holds only comments"],
      ["watchpost.json", "", "is empty"],
    ] as const) {
      o.write(content, name);
      for (const command of ["validate", "plan"]) {
        const run = await o.cli([command, "-f", name]);
        expect(run.code).toBe(1);
        expect(run.stderr).toBe(`error: ${name} ${said}: the file must hold an object with version and monitors (INVALID_CONFIG)\n`);
      }
    }
  }, 60_000);

  it("words a file holding something else than an object without an empty path before it", async () => {
    const o = await org();
    o.write("- key: shop\n  name: Shop\n");
    const run = await o.cli(["validate"]);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe("error: watchpost.yaml is not a valid Watchpost config (1 problem) (INVALID_CONFIG)\n  the file must hold an object with version and monitors\n");
  }, 60_000);

  it("names a misspelled type key as unknown and type as missing, for monitors and channels", async () => {
    const o = await org();
    o.write(`version: 1
monitors:
  - key: shop
    name: Shop
    tpye: http
    config: { url: "https://shop.example" }
  - key: db
    name: Database
    type: tpc
    config: { host: db.example, port: 5432 }
channels:
  - key: ops
    name: Ops
    typ: email
    config: { to: [ops@example.com] }
`);
    const run = await o.cli(["validate", "--json"]);
    expect(run.code).toBe(1);
    const messages = issuesOf(run.stderr).map((i) => `${i.path}: ${i.message}`);
    expect(messages).toContain("monitors[0].tpye: Unexpected property");
    expect(messages.find((m) => m.startsWith("monitors[0].type: "))).toStartWith("monitors[0].type: required, one of http, keyword,");
    expect(messages.find((m) => m.startsWith("monitors[1].type: "))).toStartWith('monitors[1].type: "tpc" is not one of http, keyword,');
    expect(messages).toContain("channels[0].typ: Unexpected property");
    expect(messages.find((m) => m.startsWith("channels[0].type: "))).toStartWith("channels[0].type: required, one of email,");
    expect((await o.cli(["apply"])).code).toBe(1);
    expect(await o.monitors()).toEqual([]);
  }, 60_000);

  it("refuses a key repeated in one object of a JSON file, as in YAML, naming the line", async () => {
    const o = await org();
    const text = `{
  "version": 1,
  "monitors": [
    { "key": "db", "name": "Database", "type": "tcp",
      "config": { "host": "db.example", "port": 5432 }, "name": "Database (old)" }
  ]
}
`;
    o.write(text, "watchpost.json");
    for (const command of ["validate", "apply"]) {
      const run = await o.cli([command, "-f", "watchpost.json"]);
      expect(run.code).toBe(1);
      expect(run.stderr).toContain("watchpost.json");
      expect(run.stderr).toContain("Map keys must be unique");
      expect(run.stderr).toContain("line 5");
    }
    expect(await o.monitors()).toEqual([]);
  }, 60_000);

  it("names the file when a reference points at no item, in plan and apply, and stores nothing", async () => {
    const o = await org();
    o.write(`version: 1
monitors:
  - key: db
    name: Database
    type: tcp
    config: { host: db.example, port: 5432 }
maintenance:
  - key: upgrade
    name: Upgrade
    starts_at: 2030-01-05T02:00:00Z
    ends_at: 2030-01-05T04:00:00Z
    monitors: [dbb]
`, "acme.yaml");
    for (const command of ["plan", "apply"]) {
      const run = await o.cli([command, "-f", "acme.yaml"]);
      expect(run.code).toBe(1);
      expect(run.stderr).toContain("error: acme.yaml names 1 key that no item of the file or the organisation has (INVALID_CONFIG)");
      expect(run.stderr).toContain('maintenance[0].monitors[0]: no monitor with key "dbb" in the file or the organisation');
    }
    expect(await o.monitors()).toEqual([]);
  }, 60_000);
});
