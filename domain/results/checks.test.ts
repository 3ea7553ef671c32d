import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { createTestDatabase, type TestDatabase } from "../../tests/support/db.ts";
import { getResult, listResults, streamResults } from "./checks.ts";
import { storeResults } from "./ingest.ts";
import { countResults } from "../../db/queries/results.ts";
import { createOrgWithMonitors, generateDataset, makeResult, prng } from "./test-fixtures.ts";
import { RESULT_STATUSES } from "./types.ts";

let db: TestDatabase;
let orgId: string;
let mon: string;
const base = Date.parse("2026-11-15T00:00:00Z");

beforeAll(async () => {
  db = await createTestDatabase();
  const made = await createOrgWithMonitors(db.sql);
  orgId = made.orgId;
  mon = made.monitorIds[0]!;
  // 30 results a minute apart; every 5th is down, in alternating locations.
  await storeResults(
    db.sql,
    Array.from({ length: 30 }, (_, i) =>
      makeResult(orgId, mon, new Date(base + i * 60_000), i % 5 === 0 ? "down" : "up", { location: i % 2 ? "us" : "eu", duration_ms: i }),
    ),
  );
}, 60_000);
afterAll(async () => {
  await db.drop();
}, 30_000);

const range = { from: new Date(base), to: new Date(base + 3_600_000) };

describe("listResults", () => {
  it("lists newest first with the total over the range", async () => {
    const page = await listResults(db.sql, orgId, mon, { ...range, limit: 3, offset: 1 });
    expect(page.total).toBe(30);
    expect(page.items.map((r) => r.duration_ms)).toEqual([28, 27, 26]);
    expect(page.items[0]).toMatchObject({ monitor_id: mon, location: "eu", location_type: "region", status: "up", data: { status_code: 200 } });
  });

  it("filters by status, location and time", async () => {
    const down = await listResults(db.sql, orgId, mon, { ...range, status: "down", location: "eu" });
    expect(down.items.map((r) => r.duration_ms)).toEqual([20, 10, 0]);
    expect(down.total).toBe(3);
    const late = await listResults(db.sql, orgId, mon, { from: new Date(base + 25 * 60_000), to: range.to });
    expect(late.total).toBe(5);
  });

  it("defaults to the last seven days", async () => {
    const page = await listResults(db.sql, orgId, mon, { to: new Date(base + 8 * 86_400_000) });
    expect(page.total).toBe(0);
    expect(page.to.getTime() - page.from.getTime()).toBe(7 * 86_400_000);
  });

  it("counts the same total as the raw rows for any range, status and location", async () => {
    const { orgId: org, monitorIds } = await createOrgWithMonitors(db.sql);
    const m = monitorIds[0]!;
    const start = new Date("2026-11-10T00:00:00Z");
    await storeResults(db.sql, generateDataset({ orgId: org, monitorIds: [m], locations: ["eu", "us", "run_1"], start, days: 2, intervalSeconds: 90, seed: 7 }));
    const rand = prng(11);
    for (let i = 0; i < 25; i++) {
      const a = start.getTime() - 3_600_000 + Math.floor(rand() * 2.2 * 86_400_000);
      const b = a + 1 + Math.floor(rand() * 30 * 3_600_000);
      const status = rand() < 0.5 ? RESULT_STATUSES[Math.floor(rand() * RESULT_STATUSES.length)] : undefined;
      const location = rand() < 0.5 ? ["eu", "us", "run_1"][Math.floor(rand() * 3)] : undefined;
      const filter = { from: new Date(a), to: new Date(b), status, location };
      const raw = await countResults(db.sql, { orgId: org, monitorId: m, ...filter });
      expect([i, (await listResults(db.sql, org, m, { ...filter, limit: 1 })).total]).toEqual([i, raw]);
    }
  });

  it("shows nothing to another organisation", async () => {
    const other = await createOrgWithMonitors(db.sql);
    expect((await listResults(db.sql, other.orgId, mon, range)).total).toBe(0);
  });
});

describe("getResult", () => {
  it("finds a result by its id and by its job id, only for its own monitor and organisation", async () => {
    const [newest] = (await listResults(db.sql, orgId, mon, { ...range, limit: 1 })).items;
    expect(await getResult(db.sql, orgId, mon, newest!.id)).toEqual(newest!);
    expect(await getResult(db.sql, orgId, mon, newest!.job_id)).toEqual(newest!);
    const other = await createOrgWithMonitors(db.sql);
    expect(await getResult(db.sql, other.orgId, mon, newest!.id)).toBeNull();
    expect(await getResult(db.sql, orgId, other.monitorIds[0]!, newest!.id)).toBeNull();
    expect(await getResult(db.sql, orgId, mon, "chk_00000000000000000000000000000000")).toBeNull();
  });
});

describe("streamResults", () => {
  it("yields every result in due-time order in batches", async () => {
    const batches: number[][] = [];
    for await (const rows of streamResults(db.sql, orgId, mon, { ...range, batchSize: 8 })) batches.push(rows.map((r) => r.duration_ms));
    expect(batches.map((b) => b.length)).toEqual([8, 8, 8, 6]);
    expect(batches.flat()).toEqual(Array.from({ length: 30 }, (_, i) => i));
  });
});
