import { describe, expect, it } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { WEB_ROOT, WEB_SHARED_SOURCES } from "./build.ts";

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? sources(join(dir, e.name)) : /\.tsx?$/.test(e.name) && !e.name.endsWith(".test.ts") ? [join(dir, e.name)] : []));
}

describe("web build inputs", () => {
  it("lists every folder outside web/ the dashboard imports, so a change there rebuilds it", () => {
    const repo = resolve(WEB_ROOT, "..");
    const outside = new Set<string>();
    for (const file of sources(join(WEB_ROOT, "src"))) {
      for (const [, spec] of readFileSync(file, "utf8").matchAll(/from "(\.[^"]+)"/g)) {
        const target = relative(repo, resolve(file, "..", spec!));
        if (!target.startsWith("web/")) outside.add(target);
      }
    }
    expect(outside.size).toBeGreaterThan(0);
    for (const t of outside) expect(WEB_SHARED_SOURCES.some((d) => t.startsWith(`${d}/`)), t).toBe(true);
  });
});
