import type { Sql } from "../client.ts";

/** One job queue's row in schedule_queue_state (scheduler/admission.ts). */
export interface QueueStateRow {
  queue: string;
  kind: "region" | "browser" | "runner";
  location: string;
  engine: string | null;
  /** ms since the epoch; null while nothing waits in its line. */
  releasedThrough: number | null;
  overloadedSince: number | null;
  lagSeconds: number;
  waiting: number;
}

const ts = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/**
 * Replaces the leader's view of its queues: the rows given (queues with a line or an overload) and no others.
 * Runs inside the caller's transaction with the watermark, so a new leader reads the two from the same instant.
 */
export async function replaceQueueStates(sql: Sql, rows: readonly QueueStateRow[]): Promise<void> {
  const json = rows.map((r) => ({
    queue: r.queue,
    kind: r.kind,
    location: r.location,
    engine: r.engine,
    released_through: ts(r.releasedThrough),
    overloaded_since: ts(r.overloadedSince),
    lag_seconds: r.lagSeconds,
    waiting: r.waiting,
  }));
  await sql`delete from schedule_queue_state where queue <> all(${rows.map((r) => r.queue)})`;
  if (json.length === 0) return;
  await sql`
    insert into schedule_queue_state (queue, kind, location, engine, released_through, overloaded_since, lag_seconds, waiting, updated_at)
    select queue, kind, location, engine, released_through, overloaded_since, lag_seconds, waiting, now()
    from jsonb_to_recordset(${sql.json(json as never)})
      as x(queue text, kind text, location text, engine text, released_through timestamptz, overloaded_since timestamptz, lag_seconds real, waiting int)
    on conflict (queue) do update set released_through = excluded.released_through, overloaded_since = excluded.overloaded_since,
      lag_seconds = excluded.lag_seconds, waiting = excluded.waiting, updated_at = now()`;
}

/** The lines the last leader left: each queue's released_through (queues with nothing waiting have none). */
export async function readQueueLines(sql: Sql): Promise<{ kind: string; location: string; engine: string | null; releasedThrough: number }[]> {
  return sql<{ kind: string; location: string; engine: string | null; releasedThrough: number }[]>`
    select kind, location, engine, (extract(epoch from released_through) * 1000)::float8 as "releasedThrough"
    from schedule_queue_state where released_through is not null`;
}

export interface RunnerScheduleState {
  overloaded_since: Date | null;
  lag_seconds: number;
  waiting: number;
}

/**
 * One runner's queue as the scheduler leader last saw it within `freshSeconds`; null while it keeps up (or no
 * leader wrote lately). The caller has already scoped the runner to its organisation.
 */
export async function runnerScheduleState(sql: Sql, runnerId: string, freshSeconds: number): Promise<RunnerScheduleState | null> {
  const [row] = await sql<RunnerScheduleState[]>`
    select overloaded_since, lag_seconds::float8 as lag_seconds, waiting from schedule_queue_state
    where kind = 'runner' and location = ${runnerId} and updated_at > now() - make_interval(secs => ${freshSeconds})`;
  return row ?? null;
}
