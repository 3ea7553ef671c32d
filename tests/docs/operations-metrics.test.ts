import { expect, it } from "bun:test";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";

const root = join(import.meta.dir, "..", "..");

/** Every source file of the roles (not tests, not the web app). */
function sources(dir: string): string[] {
  return readdirSync(join(root, dir)).flatMap((name) => {
    const rel = join(dir, name);
    if (statSync(join(root, rel)).isDirectory()) return sources(rel);
    return rel.endsWith(".ts") && !rel.endsWith(".test.ts") ? [rel] : [];
  });
}

it("documents every metric a role registers in docs/operations.md", () => {
  const names = new Set<string>();
  for (const dir of ["api", "core", "scheduler", "alerting", "runner", "billing", "scripts"]) {
    for (const file of sources(dir)) for (const m of readFileSync(join(root, file), "utf8").matchAll(/name: "(watchpost_[a-z_]+)"/g)) names.add(m[1]!);
  }
  expect(names.size).toBeGreaterThan(15);
  const doc = readFileSync(join(root, "docs", "operations.md"), "utf8");
  expect([...names].filter((n) => !doc.includes(`\`${n}\``)).sort()).toEqual([]);
});
