import { afterAll, beforeAll, expect, it } from "bun:test";
import { createSql } from "./client.ts";
import { TEST_ADMIN_URL } from "../tests/support/db.ts";
import { SCHEDULER_LOCK_KEY } from "./advisory-locks.ts";
import { migrate } from "./migrate.ts";

const name = `wp_t_${Math.floor(Date.now() / 1000)}_mig${Math.random().toString(36).slice(2, 8)}`;
const url = (() => {
  const u = new URL(TEST_ADMIN_URL);
  u.pathname = `/${name}`;
  return u.toString();
})();
const admin = createSql(TEST_ADMIN_URL, { max: 1 });

beforeAll(async () => {
  await admin.unsafe(`create database ${name}`);
});
afterAll(async () => {
  await admin.unsafe(`drop database if exists ${name} with (force)`);
  await admin.end();
});

it("migrates a fresh database from several processes at once: every role may start together", async () => {
  const outcomes = await Promise.allSettled([migrate(url), migrate(url), migrate(url)]);
  expect(outcomes.map((o) => (o.status === "fulfilled" ? "ok" : String(o.reason).slice(0, 200)))).toEqual(["ok", "ok", "ok"]);
  const sql = createSql(url, { max: 1 });
  const [row] = await sql<{ n: number }[]>`select count(*)::int as n from schema_migrations`;
  await sql.end();
  expect(row!.n).toBeGreaterThan(5);
}, 120_000);

it("does not wait for the scheduler's leader lock, which a running leader holds for as long as it leads", async () => {
  const leader = createSql(url, { max: 1 });
  try {
    await leader`select pg_advisory_lock(${SCHEDULER_LOCK_KEY})`;
    const done = await Promise.race([migrate(url).then(() => "migrated"), Bun.sleep(20_000).then(() => "blocked")]);
    expect(done).toBe("migrated");
  } finally {
    await leader.end();
  }
}, 30_000);
