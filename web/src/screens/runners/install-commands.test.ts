import { describe, expect, it } from "bun:test";
import { join } from "node:path";
import { composeSnippet, dockerRunLine, type Variant } from "./install-commands";

const ROOT = join(import.meta.dir, "..", "..", "..", "..");
const VARIANTS: Variant[] = [
  { id: "standard", browsers: "none" },
  { id: "chromium", browsers: "chromium" },
  { id: "firefox", browsers: "firefox" },
  { id: "webkit", browsers: "webkit" },
  { id: "full", browsers: "all" },
];

/** The ```sh blocks of docs/runners.md that start with `docker run`, keyed by image variant. */
async function documentedLines(): Promise<Map<string, string>> {
  const md = await Bun.file(join(ROOT, "docs", "runners.md")).text();
  const out = new Map<string, string>();
  for (const m of md.matchAll(/```sh\n(docker run[\s\S]*?)\n```/g)) {
    const variant = /runner-([a-z]+):latest/.exec(m[1]!)![1]!;
    out.set(variant, m[1]!);
  }
  return out;
}

describe("dockerRunLine", () => {
  it("writes exactly the line docs/runners.md gives for every image variant", async () => {
    const docs = await documentedLines();
    expect([...docs.keys()].sort()).toEqual(VARIANTS.map((v) => v.id).sort());
    for (const v of VARIANTS) {
      expect(dockerRunLine(v, { apiUrl: "https://watchpost.example.com", token: "rt_xxx", registry: "$REGISTRY" })).toBe(docs.get(v.id)!);
    }
  });

  it("fills in this deployment's URL, the runner's token and the registry", () => {
    const line = dockerRunLine(VARIANTS[1]!, { apiUrl: "https://w.example.org", token: "rt_abc", registry: "ghcr.io/acme" });
    expect(line).toContain("-e SERVICE_API_URL=https://w.example.org -e SERVICE_TOKEN=rt_abc -e ALLOW_PRIVATE_IPS=true -e BROWSERS=chromium");
    expect(line.endsWith("ghcr.io/acme/runner-chromium:latest")).toBe(true);
  });
});

describe("composeSnippet", () => {
  it("has the settings of the example compose file's service for every image variant", async () => {
    const example = Bun.YAML.parse(await Bun.file(join(ROOT, "infra", "runner-compose.example.yml")).text()) as { services: Record<string, Record<string, unknown>> };
    for (const v of VARIANTS) {
      const ours = (Bun.YAML.parse(composeSnippet(v, { apiUrl: "https://w.example.org", token: "rt_abc", registry: "ghcr.io/acme" }, "Office rack")) as { services: { runner: Record<string, unknown> } }).services.runner;
      const { image, environment, ...settings } = ours;
      const { image: _i, environment: theirEnv, profiles: _p, ...expected } = example.services[`runner-${v.id}`]!;
      expect(settings).toEqual(expected);
      expect(image).toBe(`ghcr.io/acme/runner-${v.id}:latest`);
      expect(environment).toMatchObject({ SERVICE_API_URL: "https://w.example.org", SERVICE_TOKEN: "rt_abc", RUNNER_NAME: "Office rack", ALLOW_PRIVATE_IPS: "true" });
      expect((environment as Record<string, string>).BROWSERS).toBe((theirEnv as Record<string, string>).BROWSERS);
    }
  });

  it("gives browser variants shared memory, and Firefox/WebKit the home directory and SYS_ADMIN", () => {
    const parse = (v: Variant) => (Bun.YAML.parse(composeSnippet(v, { apiUrl: "https://a.b", token: "rt_1", registry: "r" }, "n")) as { services: { runner: Record<string, unknown> } }).services.runner;
    const chromium = parse(VARIANTS[1]!);
    expect(chromium).toMatchObject({ shm_size: "512m", cap_add: ["NET_RAW"], tmpfs: ["/tmp:rw,size=512m,mode=1777"], environment: { BROWSERS: "chromium" } });
    const firefox = parse(VARIANTS[2]!);
    expect(firefox).toMatchObject({ cap_add: ["NET_RAW", "SYS_ADMIN"], tmpfs: ["/tmp:rw,size=512m,mode=1777", "/home/runner:rw,size=64m,uid=10001,gid=10001,mode=0700"] });
    expect(parse(VARIANTS[4]!)).toMatchObject({ environment: { BROWSERS: "all" }, cap_add: ["NET_RAW", "SYS_ADMIN"] });
  });
});
