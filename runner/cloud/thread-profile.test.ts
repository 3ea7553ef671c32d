import { expect, it } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { profileThread } from "./thread-profile.ts";

it("writes the thread's profile into a directory that does not exist yet (the main thread's profiler makes it only at exit)", async () => {
  const root = mkdtempSync(join(tmpdir(), "wp-thread-prof-"));
  const dir = join(root, "not-yet");
  try {
    const until = (async () => {
      const end = performance.now() + 50;
      let x = 0;
      while (performance.now() < end) x += Math.sqrt(x + 1);
      return x;
    })();
    await profileThread(dir, 3, until, 500);
    const file = join(dir, "thread-3.cpuprofile");
    expect(existsSync(file)).toBe(true);
    const profile = JSON.parse(readFileSync(file, "utf8")) as { nodes: unknown[]; samples: unknown[] };
    expect(profile.nodes.length).toBeGreaterThan(0);
    expect(Array.isArray(profile.samples)).toBe(true);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
