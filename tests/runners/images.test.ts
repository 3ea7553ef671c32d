import { describe, expect, it } from "bun:test";
import { join } from "node:path";

/**
 * The spec's deployment contract, checked against what we ship (no Docker engine here to build or
 * run the images): the Dockerfile's five targets, the exact `docker run` line per variant in
 * docs/runners.md, and the compose example.
 */
const root = join(import.meta.dir, "..", "..");
const read = (p: string) => Bun.file(join(root, p)).text();

const VARIANTS = ["standard", "chromium", "firefox", "webkit", "full"] as const;
const BROWSER_ENV = { standard: "none", chromium: "chromium", firefox: "firefox", webkit: "webkit", full: "all" } as const;
const needsHome = (v: string) => v === "firefox" || v === "webkit" || v === "full";

/** Stages of a Dockerfile: name → its lines, and its parent stage. */
function stages(dockerfile: string): Map<string, { from: string; lines: string[] }> {
  const out = new Map<string, { from: string; lines: string[] }>();
  let current: { from: string; lines: string[] } | null = null;
  for (const line of dockerfile.split("\n")) {
    const m = /^FROM\s+(?:--platform=\S+\s+)?(\S+)\s+AS\s+(\S+)/i.exec(line);
    if (m) {
      current = { from: m[1]!, lines: [] };
      out.set(m[2]!, current);
    } else current?.lines.push(line);
  }
  return out;
}

/** The last value of a directive along a stage's chain of parents (USER, or one ENV key). */
function effective(all: ReturnType<typeof stages>, stage: string, pick: (line: string) => string | undefined): string | undefined {
  for (let s = all.get(stage); s; s = all.get(s.from)) {
    const hit = s.lines.map(pick).filter((v) => v !== undefined).at(-1);
    if (hit !== undefined) return hit;
  }
  return undefined;
}

describe("runner images (infra/runner/Dockerfile)", () => {
  it("has one final stage per variant, each running as uid/gid 10001 with BROWSERS matching its engines", async () => {
    const all = stages(await read("infra/runner/Dockerfile"));
    for (const v of VARIANTS) {
      expect(all.has(v)).toBe(true);
      expect(effective(all, v, (l) => /^USER\s+(\S+)/.exec(l)?.[1])).toBe("10001:10001");
      expect(effective(all, v, (l) => /^ENV\s.*\bBROWSERS=(\S+)/.exec(l)?.[1])).toBe(BROWSER_ENV[v]);
    }
    const base = all.get("base")!.lines.join("\n");
    expect(base).toContain("groupadd --gid 10001");
    expect(base).toContain("useradd --uid 10001 --gid 10001");
    expect(base).toContain("setcap cap_net_raw+ep /usr/bin/ping");
  });

  it("compiles the binary like scripts/build-runner.sh and pins Playwright to package.json's playwright-core", async () => {
    const dockerfile = await read("infra/runner/Dockerfile");
    const script = await read("scripts/build-runner.sh");
    const flags = /bun build runner\/main\.ts (--compile[^"]*?) --target=/.exec(script)?.[1];
    expect(flags).toContain("--bytecode --format=esm");
    expect(dockerfile).toContain(`bun build runner/main.ts ${flags} --target=`);
    const pkg = (await Bun.file(join(root, "package.json")).json()) as Record<"dependencies" | "devDependencies", Record<string, string> | undefined>;
    const playwright = pkg.dependencies?.["playwright-core"] ?? pkg.devDependencies?.["playwright-core"];
    expect(playwright).toBeDefined();
    expect(dockerfile).toContain(`ARG PLAYWRIGHT_VERSION=${playwright!.replace(/^[\^~]/, "")}`);
  });
});

describe("docs/runners.md and the compose example", () => {
  it("give the exact docker run line of every variant: read-only root, /tmp and home tmpfs sizes, NET_RAW, shm and SYS_ADMIN", async () => {
    const doc = await read("docs/runners.md");
    const lines = [...doc.matchAll(/```sh\n(docker run[\s\S]*?)```/g)].map((m) => m[1]!.replace(/\\\n\s*/g, " "));
    for (const v of VARIANTS) {
      const line = lines.find((l) => l.includes(`/runner-${v}:latest`));
      expect(line, `docker run line for ${v}`).toBeDefined();
      expect(line).toContain("--read-only");
      expect(line).toContain(`--tmpfs /tmp:rw,size=${v === "standard" ? "256m" : "512m"}`);
      expect(line).toContain("--cap-add NET_RAW");
      expect(line).toContain("-e SERVICE_API_URL=https://");
      expect(line).toContain("-e SERVICE_TOKEN=rt_");
      if (v !== "standard") {
        expect(line).toContain("--shm-size 512m");
        expect(line).toContain(`-e BROWSERS=${BROWSER_ENV[v]}`);
      }
      expect(line!.includes("--cap-add SYS_ADMIN")).toBe(needsHome(v));
      expect(line!.includes("--tmpfs /home/runner:rw,size=64m,uid=10001,gid=10001")).toBe(needsHome(v));
    }
  });

  it("the compose example has a service per variant with the same settings", async () => {
    const compose = Bun.YAML.parse(await read("infra/runner-compose.example.yml")) as { services: Record<string, Record<string, any>> };
    for (const v of VARIANTS) {
      const s = compose.services[`runner-${v}`]!;
      expect(s, v).toBeDefined();
      expect(s.image).toEndWith(`/runner-${v}:latest`);
      expect(s).toMatchObject({ read_only: true, user: "10001:10001", network_mode: "host", cap_drop: ["ALL"] });
      expect(s.tmpfs).toContain(`/tmp:rw,size=${v === "standard" ? "256m" : "512m"},mode=1777`);
      expect(s.cap_add).toContain("NET_RAW");
      expect(s.cap_add.includes("SYS_ADMIN")).toBe(needsHome(v));
      expect(s.tmpfs.includes("/home/runner:rw,size=64m,uid=10001,gid=10001,mode=0700")).toBe(needsHome(v));
      expect(s.shm_size).toBe(v === "standard" ? undefined : "512m");
      expect(s.environment.BROWSERS).toBe(v === "standard" ? undefined : BROWSER_ENV[v]);
      expect(s.environment.SERVICE_API_URL).toContain("SERVICE_API_URL");
    }
  });
});
