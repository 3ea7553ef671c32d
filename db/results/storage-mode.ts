import type { Sql } from "../client.ts";

/** 'partitioned': plain PostgreSQL, rollup tables kept by ingest. 'timescale': hypertable + continuous aggregates. */
export type StorageMode = "partitioned" | "timescale";

const known = new WeakMap<object, Promise<StorageMode>>();

/** Which storage the migrations created; remembered per connection pool. */
export function storageMode(sql: Sql): Promise<StorageMode> {
  let mode = known.get(sql);
  if (!mode) {
    mode = sql<{ relkind: string | null }[]>`select relkind from pg_class where oid = to_regclass('check_results')`.then(([row]) => {
      if (!row?.relkind) throw new Error("check_results does not exist: run the migrations first");
      return row.relkind === "p" ? "partitioned" : "timescale";
    });
    mode.catch(() => known.delete(sql));
    known.set(sql, mode);
  }
  return mode;
}
