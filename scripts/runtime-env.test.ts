import { describe, expect, it } from "bun:test";
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const root = join(import.meta.dir, "..");
const NAMES = ["BUN_JSC_heapGrowthMaxIncrease", "MIMALLOC_PURGE_DELAY"] as const;

/** What `source scripts/runtime-env.sh` leaves in the environment of the shell, and the Bun it then runs sees, per variable. */
function sourced(env: Record<string, string | undefined>): { shell: string; bun: string } {
  const shell = NAMES.map((n) => `\${${n}-unset}`).join(" ");
  const bun = `console.log(${JSON.stringify(NAMES)}.map((n) => process.env[n] ?? 'unset').join(' '))`;
  const r = Bun.spawnSync(["bash", "-c", `source scripts/runtime-env.sh && echo "${shell}" && exec bun -e "$1"`, "bash", bun], {
    cwd: root,
    env: env as Record<string, string>,
  });
  const [shellOut = "", bunOut = ""] = r.stdout.toString().trim().split("\n");
  return { shell: shellOut, bun: r.exitCode === 0 ? bunOut : `exit ${r.exitCode}: ${r.stderr.toString()}` };
}

const baseEnv = () => {
  const env: Record<string, string | undefined> = { ...process.env };
  for (const n of NAMES) delete env[n];
  return env;
};

describe("scripts/runtime-env.sh", () => {
  it("sets Bun's heap growth and its allocator's purge delay for the Bun started after it, which accepts them", () => {
    expect(sourced(baseEnv())).toEqual({ shell: "1 -1", bun: "1 -1" });
  });

  it("keeps a value the caller set", () => {
    expect(sourced({ ...baseEnv(), BUN_JSC_heapGrowthMaxIncrease: "2" })).toEqual({ shell: "2 -1", bun: "2 -1" });
    expect(sourced({ ...baseEnv(), MIMALLOC_PURGE_DELAY: "1000" })).toEqual({ shell: "1 1000", bun: "1 1000" });
  });

  it("sets nothing this Bun rejects, so Bun still starts", () => {
    // A Bun that stops at any JavaScriptCore option it does not know, as Bun does (exit 1).
    const dir = mkdtempSync(join(tmpdir(), "wp-runtime-env-"));
    try {
      const real = Bun.which("bun")!;
      writeFileSync(join(dir, "bun"), `#!/usr/bin/env bash\n[ -n "\${BUN_JSC_heapGrowthMaxIncrease+set}" ] && { echo "error: invalid JSC environment variable" >&2; exit 1; }\nexec ${real} "$@"\n`);
      chmodSync(join(dir, "bun"), 0o755);
      expect(sourced({ ...baseEnv(), PATH: `${dir}:${process.env.PATH}` })).toEqual({ shell: "unset -1", bun: "unset -1" });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("matches what the service image sets", () => {
    const dockerfile = readFileSync(join(root, "infra/service/Dockerfile"), "utf8");
    const script = readFileSync(join(root, "scripts/runtime-env.sh"), "utf8");
    const settings = [...script.matchAll(/^\s*for setting in (.+); do$/gm)].flatMap((m) => m[1]!.split(/\s+/));
    expect(settings.map((s) => s.split("=")[0])).toEqual([...NAMES]);
    for (const setting of settings) expect(dockerfile).toContain(`ENV ${setting}\n`);
  });
});
