/**
 * The raw results' per-monitor indexes for an A/B, set in a bench's own database before it writes: `org` is today's,
 * (org_id, monitor_id, scheduled_at desc) alone; `two` adds back (monitor_id, location, scheduled_at desc) with the down
 * section of migration 20261127180000, as before it; `one` has (monitor_id, scheduled_at desc, location) alone instead
 * (measured in docs/performance.md, not made).
 */
import { readFileSync } from "node:fs";
import type { Sql } from "../../db/client.ts";

const RAW_INDEXES = ["org", "two", "one"] as const;
export type RawIndexes = (typeof RAW_INDEXES)[number];

export function rawIndexesOf(value: string): RawIndexes {
  if (!(RAW_INDEXES as readonly string[]).includes(value)) throw new Error(`the raw indexes are ${RAW_INDEXES.join(", ")}, not ${value}`);
  return value as RawIndexes;
}

export async function setRawIndexes(sql: Sql, which: RawIndexes): Promise<void> {
  if (which === "two") {
    const migration = readFileSync(new URL("../../db/migrations/20261127180000_check_results_drop_location_index.sql", import.meta.url), "utf8");
    await sql.unsafe(migration.split("-- migrate:down")[1]!);
  } else if (which === "one") {
    await sql`drop index check_results_monitor_time_idx`;
    await sql`create index check_results_monitor_due_idx on check_results (monitor_id, scheduled_at desc, location)`;
  }
}
