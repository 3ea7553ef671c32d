import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { createSql, type Sql } from "../../db/client.ts";
import { migrate } from "../../db/migrate.ts";

/** The PostgreSQL every test uses (the machine's, in CI). Each test file gets its own database. */
export const TEST_ADMIN_URL = process.env.TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";

const root = join(import.meta.dir, "..", "..", "db");

function migrationsHash(): string {
  const h = createHash("sha1");
  for (const dir of ["migrations", "timescale"]) {
    for (const f of readdirSync(join(root, dir)).sort()) if (f.endsWith(".sql")) h.update(f).update(readFileSync(join(root, dir, f)));
  }
  return h.digest("hex").slice(0, 12);
}

const dbUrl = (name: string) => {
  const u = new URL(TEST_ADMIN_URL);
  u.pathname = `/${name}`;
  return u.toString();
};

let templateReady: Promise<string> | null = null;

/**
 * Builds (once per migration set and UTC day, under an advisory lock) a migrated template database. A day's: the
 * migrations leave time-dependent state (the rollup watermark, the partitions ahead), which a template kept for weeks
 * on a developer's PostgreSQL would hand every test database from the day it was built.
 */
async function ensureTemplate(admin: Sql): Promise<string> {
  const name = `wp_tpl_${migrationsHash()}_${new Date().toISOString().slice(0, 10).replaceAll("-", "")}`;
  await admin`select pg_advisory_lock(727001)`;
  try {
    const [exists] = await admin`select 1 from pg_database where datname = ${name}`;
    if (!exists) {
      await admin.unsafe(`create database ${name}_build`).catch(async () => {
        await admin.unsafe(`drop database if exists ${name}_build with (force)`);
        await admin.unsafe(`create database ${name}_build`);
      });
      await migrate(dbUrl(`${name}_build`));
      await admin.unsafe(`alter database ${name}_build rename to ${name}`);
      // Other templates more than a day old: another checkout's run may still be copying a newer one, and a run that
      // went past midnight its own, yesterday's.
      const stale = await admin<{ datname: string }[]>`select datname from pg_database where datname like 'wp\\_tpl\\_%' and datname <> ${name} and datname not like '%\\_build' and (pg_stat_file('base/' || oid)).modification < now() - interval '1 day'`;
      for (const { datname } of stale) await admin.unsafe(`drop database if exists ${datname} with (force)`).catch(() => {});
    }
    // Databases of test runs that died more than an hour ago.
    const cutoff = Math.floor(Date.now() / 1000) - 3600;
    const old = await admin<{ datname: string }[]>`select datname from pg_database where datname like 'wp\\_t\\_%'`;
    for (const { datname } of old) {
      const ts = Number(datname.split("_")[2]);
      if (ts && ts < cutoff) await admin.unsafe(`drop database if exists ${datname} with (force)`).catch(() => {});
    }
  } finally {
    await admin`select pg_advisory_unlock(727001)`;
  }
  return name;
}

export interface TestDatabase {
  url: string;
  sql: Sql;
  drop(): Promise<void>;
}

/** A fresh, migrated database for one test file. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const admin = createSql(TEST_ADMIN_URL, { max: 1 });
  try {
    templateReady ??= ensureTemplate(admin);
    const template = await templateReady;
    const name = `wp_t_${Math.floor(Date.now() / 1000)}_${Math.random().toString(36).slice(2, 10)}`;
    for (let attempt = 0; ; attempt++) {
      try {
        await admin.unsafe(`create database ${name} template ${template}`);
        break;
      } catch (err) {
        // Another process may be copying the same template at this instant.
        if (attempt > 20) throw err;
        await Bun.sleep(100 + Math.random() * 200);
      }
    }
    const url = dbUrl(name);
    const sql = createSql(url, { max: 10 });
    return {
      url,
      sql,
      async drop() {
        await sql.end({ timeout: 2 });
        const a = createSql(TEST_ADMIN_URL, { max: 1 });
        await a.unsafe(`drop database if exists ${name} with (force)`).catch(() => {});
        await a.end();
      },
    };
  } finally {
    await admin.end();
  }
}
