import type { Sql } from "../client.ts";
import { BLIND_TIME_KEPT_S, type BlindStretch, uncovered } from "../../core/process/blind-time.ts";

/** An API process records its presence this often. */
export const API_BEAT_MS = 5_000;
/** An API whose last beat is this recent counts as up now; an older last beat ends its presence at that beat. */
const UP_WITHIN_S = 15;

export interface ApiBeat {
  instanceId: string;
  /** Its first beat: a new row starts its presence, and rows of every API ended over `BLIND_TIME_KEPT_S` ago are deleted. */
  first: boolean;
  /** It could not reach the database since this many seconds before now (its last good beat, or its start). */
  interruptedForS: number | null;
}

/** One beat of an API process, recording first the interruption it ends, if any. */
export async function beatApiPresence(sql: Sql, beat: ApiBeat): Promise<void> {
  if (beat.interruptedForS !== null) {
    await sql`
      insert into api_interruptions (instance_id, from_at, to_at)
      values (${beat.instanceId}, now() - make_interval(secs => ${beat.interruptedForS}), now())`;
  }
  await sql`
    insert into api_presence (instance_id) values (${beat.instanceId})
    on conflict (instance_id) do update set last_beat_at = now()`;
  if (beat.first) {
    await sql`delete from api_presence where last_beat_at < now() - make_interval(secs => ${BLIND_TIME_KEPT_S})`;
    await sql`delete from api_interruptions where to_at < now() - make_interval(secs => ${BLIND_TIME_KEPT_S})`;
  }
}

const agoS = (sql: Sql, column: string) => sql`extract(epoch from now() - ${sql(column)})::float8`;

/** When each API process was up, as seconds before the database's now: to now while its last beat is recent. */
export async function apiPresences(sql: Sql): Promise<BlindStretch[]> {
  const rows = await sql<{ from_ago: number; to_ago: number }[]>`
    select ${agoS(sql, "started_at")} as from_ago,
           case when last_beat_at > now() - make_interval(secs => ${UP_WITHIN_S}) then 0 else ${agoS(sql, "last_beat_at")} end as to_ago
    from api_presence
    where last_beat_at > now() - make_interval(secs => ${BLIND_TIME_KEPT_S})`;
  return rows.map((r) => ({ fromAgoS: r.from_ago, toAgoS: r.to_ago }));
}

/** When an API process that was up could not reach the database, as seconds before now. */
async function apiInterruptions(sql: Sql): Promise<BlindStretch[]> {
  const rows = await sql<{ from_ago: number; to_ago: number }[]>`
    select ${agoS(sql, "from_at")} as from_ago, ${agoS(sql, "to_at")} as to_ago
    from api_interruptions
    where to_at > now() - make_interval(secs => ${BLIND_TIME_KEPT_S})`;
  return rows.map((r) => ({ fromAgoS: r.from_ago, toAgoS: Math.max(0, r.to_ago) }));
}

/**
 * The stretches when no ping or runner heartbeat could arrive (`BlindTimeOptions.elsewhere` of the scaled mode's
 * judges): when no API process was up, and when one that was up could not reach the database. Nothing before the
 * first recorded presence counts as absence, so a database no API ever beat into is judged as before.
 */
export const apiTierAbsences =
  (sql: Sql) =>
  async (): Promise<BlindStretch[]> => [...uncovered(await apiPresences(sql)), ...(await apiInterruptions(sql))];
