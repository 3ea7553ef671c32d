import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { join } from "node:path";
import { resultKeyState } from "../../db/results/result-key.ts";
import { createTestDatabase, type TestDatabase } from "../support/db.ts";

const root = join(import.meta.dir, "..", "..");
let db: TestDatabase;

beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await db.drop();
});

/** `bun run cli …` as an operator types it, against the test database only. */
async function cli(...args: string[]) {
  const env: Record<string, string> = { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", DATABASE_URL: db.url };
  const proc = Bun.spawn(["bun", "run", "cli", ...args], { cwd: root, env, stdout: "pipe", stderr: "pipe" });
  const [code, stdout, stderr] = await Promise.all([proc.exited, new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
  return { code, stdout, stderr };
}

describe("bun run cli results:rekey", () => {
  it("moves check_results' unique key to due time first now, and says so in one JSON line; a second run has nothing to do", async () => {
    // As migration 20261127140000 leaves a database whose days were all too big to key inline.
    await db.sql`drop index check_results_due_job_key`;
    await db.sql`alter table check_results add constraint check_results_job_key unique (job_id, scheduled_at)`;
    await db.sql`create unique index check_results_due_job_key on only check_results (scheduled_at, job_id)`;
    const [{ n: partitions }] = (await db.sql`select count(*)::int as n from pg_inherits where inhparent = 'check_results'::regclass`) as unknown as [{ n: number }];

    const res = await cli("results:rekey");
    expect(res.code).toBe(0);
    const out = JSON.parse(res.stdout.trim());
    expect(out).toMatchObject({ droppedOldKey: true, done: true, waitsForOperator: false });
    expect(out.built).toHaveLength(partitions);
    expect(out.built).toContain("check_results_default");
    expect(await resultKeyState(db.sql)).toEqual({ valid: true, oldKey: false });

    const again = await cli("results:rekey");
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout.trim())).toMatchObject({ built: [], droppedOldKey: false, done: true });
  }, 60_000);

  it("takes no arguments: an unknown one gets the usage and exit code 64", async () => {
    const res = await cli("results:rekey", "--now");
    expect(res.code).toBe(64);
    expect(res.stderr).toContain("results:rekey");
  });
});
