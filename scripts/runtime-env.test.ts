import { describe, expect, it } from "bun:test";
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const root = join(import.meta.dir, "..");

/** What `source scripts/runtime-env.sh` leaves in the environment of the shell, and the Bun it then runs sees. */
function sourced(env: Record<string, string | undefined>): { shell: string; bun: string } {
  const r = Bun.spawnSync(
    ["bash", "-c", 'source scripts/runtime-env.sh && echo "${BUN_JSC_heapGrowthMaxIncrease-unset}" && exec bun -e "console.log(process.env.BUN_JSC_heapGrowthMaxIncrease ?? \'unset\')"'],
    { cwd: root, env: env as Record<string, string> },
  );
  const [shell = "", bun = ""] = r.stdout.toString().trim().split("\n");
  return { shell, bun: r.exitCode === 0 ? bun : `exit ${r.exitCode}: ${r.stderr.toString()}` };
}

const baseEnv = () => {
  const env: Record<string, string | undefined> = { ...process.env };
  delete env.BUN_JSC_heapGrowthMaxIncrease;
  return env;
};

describe("scripts/runtime-env.sh", () => {
  it("sets Bun's heap growth for the Bun started after it, which accepts it", () => {
    expect(sourced(baseEnv())).toEqual({ shell: "1", bun: "1" });
  });

  it("keeps a value the caller set", () => {
    expect(sourced({ ...baseEnv(), BUN_JSC_heapGrowthMaxIncrease: "2" })).toEqual({ shell: "2", bun: "2" });
  });

  it("sets nothing when this Bun rejects the option, so Bun still starts", () => {
    // A Bun that stops at any JavaScriptCore option it does not know, as Bun does (exit 1).
    const dir = mkdtempSync(join(tmpdir(), "wp-runtime-env-"));
    try {
      const real = Bun.which("bun")!;
      writeFileSync(join(dir, "bun"), `#!/usr/bin/env bash\n[ -n "\${BUN_JSC_heapGrowthMaxIncrease+set}" ] && { echo "error: invalid JSC environment variable" >&2; exit 1; }\nexec ${real} "$@"\n`);
      chmodSync(join(dir, "bun"), 0o755);
      expect(sourced({ ...baseEnv(), PATH: `${dir}:${process.env.PATH}` })).toEqual({ shell: "unset", bun: "unset" });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("matches what the service image sets", () => {
    const dockerfile = readFileSync(join(root, "infra/service/Dockerfile"), "utf8");
    const script = readFileSync(join(root, "scripts/runtime-env.sh"), "utf8");
    const settings = [...script.matchAll(/^\s*for setting in (.+); do$/gm)].flatMap((m) => m[1]!.split(/\s+/));
    expect(settings.length).toBeGreaterThan(0);
    for (const setting of settings) expect(dockerfile).toContain(`ENV ${setting}\n`);
  });
});
