import { describe, expect, it } from "bun:test";
import { encodeExport } from "./export.ts";
import type { CheckResultRow } from "./types.ts";

const row = (i: number, extra: Partial<CheckResultRow> = {}): CheckResultRow => ({
  id: `chk_${i.toString(16).padStart(32, "0")}`,
  job_id: `job_${i}`,
  monitor_id: "mon_1",
  location: "eu",
  location_type: "region",
  scheduled_at: new Date(Date.UTC(2026, 10, 1, 0, i)),
  checked_at: new Date(Date.UTC(2026, 10, 1, 0, i, 1)),
  status: "up",
  duration_ms: i,
  error: null,
  data: { status_code: 200 },
  ...extra,
});

/** A source of `batches` batches of `size` rows that records how far it was read and whether it was closed. */
function source(batches: number, size: number) {
  const seen = { pulled: 0, closed: false };
  const iterable: AsyncIterable<CheckResultRow[]> = {
    [Symbol.asyncIterator]: () => ({
      async next() {
        if (seen.pulled >= batches) return { done: true, value: undefined };
        const b = seen.pulled++;
        return { done: false, value: Array.from({ length: size }, (_, k) => row(b * size + k)) };
      },
      async return() {
        seen.closed = true;
        return { done: true, value: undefined };
      },
    }),
  };
  return { iterable, seen };
}

const text = (s: ReadableStream<Uint8Array>) => new Response(s).text();

describe("encodeExport", () => {
  it("reads one batch ahead of the consumer, never the whole source", async () => {
    const { iterable, seen } = source(1000, 100);
    const stream = await encodeExport(iterable, "json");
    expect(seen.pulled).toBe(1);
    const reader = stream.getReader();
    await reader.read();
    await reader.read();
    expect(seen.pulled).toBeLessThanOrEqual(3);
    await reader.cancel();
    expect(seen.closed).toBe(true);
  });

  it("ends the source when cancelled during a read, like a postgres.js cursor that ignores return() mid-fetch", async () => {
    let release: (() => void) | null = null;
    let reads = 0;
    let closed = false;
    const cursor: AsyncIterable<CheckResultRow[]> = {
      [Symbol.asyncIterator]: () => ({
        next: () => {
          reads++;
          if (reads === 1) return Promise.resolve({ done: false, value: [row(0)] });
          return new Promise((resolve) => {
            release = () => {
              release = null;
              resolve({ done: false, value: [row(reads)] });
            };
          });
        },
        async return() {
          if (!release) closed = true; // a fetch in flight swallows the close
          return { done: true, value: undefined };
        },
      }),
    };
    const stream = await encodeExport(cursor, "json");
    const reader = stream.getReader();
    await reader.read(); // the first batch, read ahead
    const second = reader.read(); // starts the second fetch
    await Bun.sleep(1);
    expect(release).not.toBeNull();
    await reader.cancel();
    expect(closed).toBe(false);
    release!();
    await second.catch(() => {});
    await Bun.sleep(1);
    expect(closed).toBe(true);
  });

  it("writes a CSV header even without rows, and a JSON array either way", async () => {
    expect(await text(await encodeExport(source(0, 0).iterable, "csv", ["status_code"]))).toBe(
      "id,scheduled_at,checked_at,status,duration_ms,location,location_type,error,job_id,data.status_code,data\n",
    );
    expect(JSON.parse(await text(await encodeExport(source(0, 0).iterable, "json")))).toEqual([]);
    const all = JSON.parse(await text(await encodeExport(source(3, 2).iterable, "json")));
    expect(all.map((r: { duration_ms: number }) => r.duration_ms)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(all[0]).toEqual({ ...row(0), scheduled_at: "2026-11-01T00:00:00.000Z", checked_at: "2026-11-01T00:00:01.000Z" });
  });

  it("quotes CSV cells, writes lists as JSON and defuses spreadsheet formulas in text but not negative numbers", async () => {
    const rows = [row(1, { error: "-1 bad, \"worse\"", data: { sans: ["a", "b"], chain_valid: false, ssl_days_remaining: -3, issuer: "@evil" } })];
    const iterable: AsyncIterable<CheckResultRow[]> = (async function* () {
      yield rows;
    })();
    const csv = await text(await encodeExport(iterable, "csv", ["ssl_days_remaining", "issuer", "sans", "chain_valid"]));
    const line = csv.split("\n")[1]!;
    expect(line).toContain(`,"'-1 bad, ""worse""",job_1,-3,'@evil,"[""a"",""b""]",false,`);
  });

  it("errors the stream (a cut transfer) and reports it when a later batch fails", async () => {
    const failing: AsyncIterable<CheckResultRow[]> = (async function* () {
      yield [row(1)];
      throw new Error("connection lost");
    })();
    const reported: unknown[] = [];
    const stream = await encodeExport(failing, "json", [], (err) => reported.push(err));
    await expect(text(stream)).rejects.toThrow("connection lost");
    expect(reported.map(String)).toEqual(["Error: connection lost"]);
  });

  it("fails before streaming when the first batch cannot be read", async () => {
    const failing: AsyncIterable<CheckResultRow[]> = {
      [Symbol.asyncIterator]: () => ({ next: () => Promise.reject(new Error("relation does not exist")) }),
    };
    await expect(encodeExport(failing, "csv")).rejects.toThrow("relation does not exist");
  });
});
