import { migrate } from "./migrate.ts";
import type { Logger } from "../core/log.ts";
import { createSql, type Sql } from "./client.ts";
import { startEmbeddedPostgres } from "./embedded.ts";

export interface Database {
  sql: Sql;
  url: string;
  timescale: boolean;
  embedded: boolean;
  close(): Promise<void>;
}

interface DbConfig {
  DATABASE_URL?: string;
  DATA_DIR: string;
  EMBEDDED_PG_PORT: number;
}

/**
 * DATABASE_URL when set, else the embedded PostgreSQL in DATA_DIR; optionally runs migrations.
 * `movablePort` (EMBEDDED_PG_PORT not set): the embedded one may move off a taken port (embedded.ts).
 */
export async function openDatabase(
  config: DbConfig,
  log: Logger,
  { migrate: runMigrations = true, poolSize = 10, movablePort = false }: { migrate?: boolean; poolSize?: number; movablePort?: boolean } = {},
): Promise<Database> {
  const embedded = config.DATABASE_URL ? null : await startEmbeddedPostgres(config.DATA_DIR, config.EMBEDDED_PG_PORT, log, { movable: movablePort });
  const url = config.DATABASE_URL ?? embedded!.url;
  let timescale = false;
  if (runMigrations) timescale = (await migrate(url)).timescale;
  const sql = createSql(url, { max: poolSize });
  if (!runMigrations) {
    const [row] = await sql`select exists(select 1 from pg_extension where extname = 'timescaledb') as on`;
    timescale = Boolean(row?.on);
  }
  return {
    sql,
    url,
    timescale,
    embedded: embedded !== null,
    async close() {
      await sql.end({ timeout: 5 });
      await embedded?.stop();
    },
  };
}
