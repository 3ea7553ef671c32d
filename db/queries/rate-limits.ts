import type { Sql } from "../client.ts";

/** Adds `amount` to the window's shared counter and returns the new total. */
export async function claimRateLimitTokens(sql: Sql, key: string, windowStart: Date, amount: number): Promise<number> {
  const [row] = await sql<{ count: number }[]>`
    insert into rate_limit_windows (key, window_start, count) values (${key}, ${windowStart}, ${amount})
    on conflict (key, window_start) do update set count = rate_limit_windows.count + excluded.count
    returning count`;
  return row!.count;
}

export async function deleteRateLimitWindowsBefore(sql: Sql, before: Date): Promise<void> {
  await sql`delete from rate_limit_windows where window_start < ${before}`;
}
