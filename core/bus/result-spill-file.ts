import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Logger } from "../log.ts";
import type { ResultSpill, UnsettledResult } from "./memory-bus.ts";

/**
 * Where the all-in-one keeps, between a stop and the next start, the results its in-process bus still held
 * (a durable had not settled them when the shutdown deadline passed). One JSON object per line.
 */
export const RESULT_SPILL_FILE = "unsettled-results.ndjson";

/** Writes every unsettled result to DATA_DIR (atomically: a temporary file, then a rename); returns how many. */
export function spillUnsettledResults(bus: ResultSpill, dataDir: string, log: Logger): number {
  const results = bus.unsettledResults();
  if (results.length === 0) return 0;
  const path = join(dataDir, RESULT_SPILL_FILE);
  const tmp = `${path}.tmp`;
  writeFileSync(tmp, results.map((r) => JSON.stringify(r)).join("\n") + "\n", { mode: 0o600 });
  renameSync(tmp, path);
  log.warn({ op: "bus.spill", results: results.length, path }, "results not yet stored or evaluated were written to disk; the next start takes them up");
  return results.length;
}

/**
 * At start, before anything publishes: puts the results of the last shutdown back on the bus, each for the
 * durables that had not settled it, and removes the file. A line that does not parse is kept aside, never
 * dropped silently. Returns how many were restored.
 */
export function restoreSpilledResults(bus: ResultSpill, dataDir: string, log: Logger): number {
  const path = join(dataDir, RESULT_SPILL_FILE);
  if (!existsSync(path)) return 0;
  const good: UnsettledResult[] = [];
  const bad: string[] = [];
  for (const line of readFileSync(path, "utf8").split("\n")) {
    if (!line.trim()) continue;
    const r = parse(line);
    if (r) good.push(r);
    else bad.push(line);
  }
  bus.restoreResults(good);
  if (bad.length > 0) {
    const aside = `${path}.unreadable-${Date.now()}`;
    writeFileSync(aside, bad.join("\n") + "\n", { mode: 0o600 });
    log.error({ op: "bus.restore", lines: bad.length, path: aside }, "some spilled results could not be read; kept aside");
  }
  rmSync(path, { force: true });
  log.info({ op: "bus.restore", results: good.length }, "results left at the last shutdown are back on the bus");
  return good.length;
}

function parse(line: string): UnsettledResult | null {
  try {
    const r = JSON.parse(line) as Partial<UnsettledResult>;
    const ok =
      typeof r.subject === "string" &&
      r.subject.startsWith("results.") &&
      typeof r.payload === "string" &&
      Array.isArray(r.durables) &&
      r.durables.length > 0 &&
      r.durables.every((d) => typeof d === "string");
    return ok ? (r as UnsettledResult) : null;
  } catch {
    return null;
  }
}
