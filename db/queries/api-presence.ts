import type { Sql } from "../client.ts";
import { type BlindStretch, uncovered } from "../../core/process/blind-time.ts";

/** An API process records its presence this often. */
export const API_BEAT_MS = 5_000;
/** An API whose last beat is this recent counts as up now; an older last beat ends its presence at that beat. */
const UP_WITHIN_S = 15;
/** Presences ended longer ago than this are deleted and never read: no judge's window is longer. */
const KEEP_S = 8 * 86_400;

/** One beat of an API process; its first (a new row) starts its presence. The first also deletes the long-ended ones. */
export async function beatApiPresence(sql: Sql, instanceId: string, first: boolean): Promise<void> {
  await sql`
    insert into api_presence (instance_id) values (${instanceId})
    on conflict (instance_id) do update set last_beat_at = now()`;
  if (first) await sql`delete from api_presence where last_beat_at < now() - make_interval(secs => ${KEEP_S})`;
}

/** When each API process was up, as seconds before the database's now: to now while its last beat is recent. */
export async function apiPresences(sql: Sql): Promise<BlindStretch[]> {
  const rows = await sql<{ from_ago: number; to_ago: number }[]>`
    select extract(epoch from now() - started_at)::float8 as from_ago,
           case when last_beat_at > now() - make_interval(secs => ${UP_WITHIN_S}) then 0
                else extract(epoch from now() - last_beat_at)::float8 end as to_ago
    from api_presence
    where last_beat_at > now() - make_interval(secs => ${KEEP_S})`;
  return rows.map((r) => ({ fromAgoS: r.from_ago, toAgoS: r.to_ago }));
}

/**
 * The stretches when no API process was up (`BlindTimeOptions.elsewhere` of the scaled mode's judges): no ping or
 * runner heartbeat could arrive then. Nothing before the first recorded presence counts, so a database no API
 * ever beat into is judged as before.
 */
export const apiTierAbsences = (sql: Sql) => async (): Promise<BlindStretch[]> => uncovered(await apiPresences(sql));
