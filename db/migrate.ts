import { fileURLToPath } from "node:url";
import { dirname, join } from "node:path";
import { createSql } from "../core/db/client.ts";

const here = dirname(fileURLToPath(import.meta.url));
const dbmateBin = join(here, "..", "node_modules", ".bin", "dbmate");

async function dbmate(url: string, dir: string, table: string): Promise<void> {
  const proc = Bun.spawn(
    [dbmateBin, "--url", withSslMode(url), "--migrations-dir", dir, "--migrations-table", table, "--no-dump-schema", "--wait", "up"],
    { stdout: "pipe", stderr: "pipe" },
  );
  const [code, out, err] = await Promise.all([proc.exited, new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
  if (code !== 0) throw new Error(`dbmate failed on ${dir} (exit ${code}): ${(err || out).trim().slice(0, 2000)}`);
}

function withSslMode(url: string): string {
  const u = new URL(url);
  if (!u.searchParams.has("sslmode")) u.searchParams.set("sslmode", "disable");
  return u.toString();
}

/**
 * Applies db/migrations, then db/timescale when the server offers TimescaleDB.
 * dbmate takes a lock, so several processes may call this at start at once.
 */
export async function migrate(url: string): Promise<{ timescale: boolean }> {
  await dbmate(url, join(here, "migrations"), "schema_migrations");
  const sql = createSql(url, { max: 1 });
  try {
    const [row] = await sql`select exists(select 1 from pg_available_extensions where name = 'timescaledb') as available`;
    if (!row?.available) return { timescale: false };
  } finally {
    await sql.end();
  }
  await dbmate(url, join(here, "timescale"), "timescale_migrations");
  return { timescale: true };
}
