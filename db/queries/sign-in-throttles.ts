import type { Sql } from "../client.ts";

export interface ThrottlePolicy {
  /** Attempts allowed before the first delay. */
  freeAttempts: number;
  baseDelaySeconds: number;
  maxDelaySeconds: number;
  /** Failures older than this (since the last attempt) are forgotten. */
  forgetAfterSeconds: number;
}

/**
 * Counts one attempt before it is checked, in one statement, so parallel guesses cannot slip past
 * the count. Returns null when the account may try now, or the seconds until it may.
 */
export async function claimSignInAttempt(sql: Sql, accountKey: Buffer, p: ThrottlePolicy): Promise<number | null> {
  // In SET every t.* is the row before this attempt, so `failures` is spelt out where it is needed.
  const failures = sql`(case when t.last_attempt_at < now() - make_interval(secs => ${p.forgetAfterSeconds}) then 1 else t.failures + 1 end)`;
  const first = p.freeAttempts <= 1 ? sql`now() + make_interval(secs => ${p.baseDelaySeconds})` : sql`null::timestamptz`;
  const [claimed] = await sql<{ failures: number }[]>`
    insert into sign_in_throttles as t (account_key, failures, last_attempt_at, blocked_until)
    values (${accountKey}, 1, now(), ${first})
    on conflict (account_key) do update set
      failures = ${failures},
      last_attempt_at = now(),
      blocked_until = case when ${failures} >= ${p.freeAttempts}
        then now() + make_interval(secs => least(${p.maxDelaySeconds}::float8, ${p.baseDelaySeconds}::float8 * power(2, ${failures} - ${p.freeAttempts})))
        else null end
    where t.blocked_until is null or t.blocked_until <= now()
    returning t.failures`;
  if (claimed) return null;
  const [row] = await sql<{ wait: number }[]>`
    select greatest(1, ceil(extract(epoch from blocked_until - now())))::int as wait from sign_in_throttles where account_key = ${accountKey}`;
  return row?.wait ?? 1;
}

export async function clearSignInThrottle(sql: Sql, accountKey: Buffer): Promise<void> {
  await sql`delete from sign_in_throttles where account_key = ${accountKey}`;
}

/** Rows whose failures are forgotten anyway; swept now and then so the table stays small. */
export async function deleteQuietSignInThrottles(sql: Sql, olderThanSeconds: number): Promise<void> {
  await sql`delete from sign_in_throttles where last_attempt_at < now() - make_interval(secs => ${olderThanSeconds}) and (blocked_until is null or blocked_until < now())`;
}
