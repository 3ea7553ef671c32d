import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const ROOT = new URL("../../../", import.meta.url).pathname;

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
  json<T = any>(): T;
}

/** A home of its own for one test file: XDG_CONFIG_HOME and a working directory for config files. */
export function cliHome() {
  const dir = mkdtempSync(join(tmpdir(), "watchpost-cli-"));
  return { dir, configHome: join(dir, "config") };
}

/** Runs `bun cli/watchpost/main.ts ARGS` as a process, as a user would run `watchpost`. */
export async function runCli(args: string[], o: { env?: Record<string, string | undefined>; stdin?: string; cwd?: string; configHome: string }): Promise<CliRun> {
  const env: Record<string, string> = { PATH: process.env.PATH ?? "", HOME: o.configHome, XDG_CONFIG_HOME: o.configHome, NO_COLOR: "1" };
  for (const [k, v] of Object.entries(o.env ?? {})) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  const p = Bun.spawn(["bun", join(ROOT, "cli/watchpost/main.ts"), ...args], {
    cwd: o.cwd ?? ROOT,
    env,
    stdin: o.stdin === undefined ? "ignore" : new TextEncoder().encode(o.stdin),
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  return {
    code,
    stdout,
    stderr,
    json() {
      try {
        return JSON.parse(stdout);
      } catch {
        throw new Error(`not JSON (exit ${code}): ${stdout}\n${stderr}`);
      }
    },
  };
}
