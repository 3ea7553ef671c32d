import { afterEach, describe, expect, it } from "bun:test";
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { silentLogger } from "../log.ts";
import { canSpillResults, createMemoryBus } from "./memory-bus.ts";
import { RESULT_SPILL_FILE, restoreSpilledResults, spillUnsettledResults } from "./result-spill-file.ts";
import type { Bus, Delivery, ResultMessage } from "./types.ts";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
const dataDir = () => {
  const d = mkdtempSync(join(tmpdir(), "wp-spill-"));
  dirs.push(d);
  return d;
};

const DURABLES = [{ name: "ingest" }, { name: "alerting" }];

async function freshBus(): Promise<Bus> {
  const bus = createMemoryBus({ results: { maxAgeMs: 3_600_000 } });
  await bus.ensureTopology({ resultDurables: DURABLES });
  return bus;
}

/** Takes (and acks) `n` results from a durable; any beyond `n` in the last batch go back. */
async function take(bus: Bus, durable: string, n: number): Promise<string[]> {
  const seen: string[] = [];
  await new Promise<void>((resolve) => {
    let handle: { stop(): Promise<void> } | null = null;
    void bus
      .consumeResults<ResultMessage>(durable, { batchSize: 1000, maxWaitMs: 5 }, async (batch: Delivery<ResultMessage>[]) => {
        for (const d of batch) {
          if (seen.length >= n) {
            d.nak();
            continue;
          }
          seen.push(d.data.id);
          d.ack();
        }
        if (seen.length >= n) {
          void handle?.stop();
          resolve();
        }
      })
      .then((h) => {
        handle = h;
        if (n === 0) void h.stop().then(resolve);
      });
  });
  return seen;
}

describe("the in-process bus's spill at shutdown", () => {
  it("writes a backlog of 100,000 results and gives each back only to the durables that had not settled it", async () => {
    const a = await freshBus();
    const ids: string[] = [];
    for (let i = 0; i < 100_000; i++) {
      const id = `r${i}`;
      ids.push(id);
      await a.publishResult(`results.org_1.mon_${i % 500}`, { id, n: i } as ResultMessage);
    }
    // Ingest stored the first 30,000; alerting evaluated the first 60,000.
    expect(await take(a, "ingest", 30_000)).toEqual(ids.slice(0, 30_000));
    expect(await take(a, "alerting", 60_000)).toEqual(ids.slice(0, 60_000));
    expect(await a.pendingResults("ingest")).toBe(70_000);
    expect(await a.pendingResults("alerting")).toBe(40_000);

    const dir = dataDir();
    if (!canSpillResults(a)) throw new Error("the memory bus spills");
    const started = performance.now();
    expect(spillUnsettledResults(a, dir, silentLogger)).toBe(70_000);
    const spillMs = performance.now() - started;
    await a.close();

    const b = await freshBus();
    if (!canSpillResults(b)) throw new Error("the memory bus spills");
    expect(restoreSpilledResults(b, dir, silentLogger)).toBe(70_000);
    expect(existsSync(join(dir, RESULT_SPILL_FILE))).toBe(false);
    expect(await b.pendingResults("ingest")).toBe(70_000);
    expect(await b.pendingResults("alerting")).toBe(40_000);
    expect(await take(b, "ingest", 70_000)).toEqual(ids.slice(30_000));
    expect(await take(b, "alerting", 40_000)).toEqual(ids.slice(60_000));
    expect(await b.pendingResults("ingest")).toBe(0);
    expect(await b.pendingResults("alerting")).toBe(0);
    // New results after the restore flow as usual, to both.
    await b.publishResult("results.org_1.mon_1", { id: "after", n: -1 } as ResultMessage);
    expect(await take(b, "ingest", 1)).toEqual(["after"]);
    expect(await take(b, "alerting", 1)).toEqual(["after"]);
    expect(spillMs).toBeLessThan(10_000);
    await b.close();
  }, 60_000);

  it("writes nothing when everything was settled, and a start without a spill file restores nothing", async () => {
    const a = await freshBus();
    await a.publishResult("results.org_1.mon_1", { id: "x" } as ResultMessage);
    await take(a, "ingest", 1);
    await take(a, "alerting", 1);
    const dir = dataDir();
    if (!canSpillResults(a)) throw new Error("the memory bus spills");
    expect(spillUnsettledResults(a, dir, silentLogger)).toBe(0);
    expect(readdirSync(dir)).toEqual([]);
    expect(restoreSpilledResults(a, dir, silentLogger)).toBe(0);
    await a.close();
  });

  it("keeps unreadable lines aside instead of dropping them, and restores the rest", async () => {
    const dir = dataDir();
    const good = { subject: "results.org_1.mon_1", payload: JSON.stringify({ id: "ok" }), durables: ["ingest"] };
    writeFileSync(join(dir, RESULT_SPILL_FILE), `${JSON.stringify(good)}\n{not json\n${JSON.stringify({ subject: "jobs.x", payload: "{}", durables: ["ingest"] })}\n`);
    const b = await freshBus();
    if (!canSpillResults(b)) throw new Error("the memory bus spills");
    expect(restoreSpilledResults(b, dir, silentLogger)).toBe(1);
    const aside = readdirSync(dir).filter((f) => f.includes(".unreadable-"));
    expect(aside).toHaveLength(1);
    expect(await take(b, "ingest", 1)).toEqual(["ok"]);
    expect(await b.pendingResults("alerting")).toBe(0);
    await b.close();
  });
});
