import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";

export const WEB_ROOT = join(import.meta.dir, "..", "..", "web");
export const WEB_DIST = join(WEB_ROOT, "dist");
const REPO = join(WEB_ROOT, "..");

/**
 * Folders outside web/ whose browser-safe modules the dashboard imports (schemas/ and each check and
 * channel type's own *-schema.ts: configs, data, alert conditions, maintenance recurrence). A change there
 * makes web/dist stale too; build.test.ts fails when web/src imports from anywhere else.
 */
export const WEB_SHARED_SOURCES = ["schemas", "runner/checks", "alerting/channels"];

/** The bundler options of the dashboard, shared by scripts/build-web.ts and the on-demand build. */
export const webBuildOptions = {
  entrypoints: [join(WEB_ROOT, "index.html")],
  minify: true,
  // Screens loaded with import() get their own chunks, so the first screen downloads less.
  splitting: true,
  publicPath: "/",
  define: { "process.env.NODE_ENV": '"production"' },
} as const;

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestMtime(p));
    else if (!entry.name.endsWith(".test.ts")) newest = Math.max(newest, statSync(p).mtimeMs);
  }
  return newest;
}

/** True when web/dist is missing or older than a source file (or there is no source to compare). */
export function distIsStale(): boolean {
  let built: number;
  try {
    built = statSync(join(WEB_DIST, "index.html")).mtimeMs;
  } catch {
    return true;
  }
  try {
    const shared = WEB_SHARED_SOURCES.map((d) => newestMtime(join(REPO, d)));
    return Math.max(newestMtime(join(WEB_ROOT, "src")), statSync(join(WEB_ROOT, "index.html")).mtimeMs, ...shared) > built;
  } catch {
    return false;
  }
}

/** Builds the dashboard in memory: path (e.g. `/index-ab12cd34.js`) → file. */
export async function buildWebInMemory(): Promise<Map<string, Blob>> {
  const out = await Bun.build({ ...webBuildOptions, entrypoints: [...webBuildOptions.entrypoints] });
  if (!out.success) throw new AggregateError(out.logs, "web build failed");
  return new Map(out.outputs.map((o) => [`/${o.path.replace(/^\.\//, "")}`, o as Blob]));
}
