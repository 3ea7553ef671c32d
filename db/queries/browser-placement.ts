import type { Sql } from "../client.ts";
import { onlineSince } from "./scheduler.ts";

/** region → browser engine → how many of its online workers (`onlineSince`) offer it. */
export async function onlineRegionEngines(sql: Sql, ttlSeconds: number, stallSeconds: number): Promise<Map<string, Map<string, number>>> {
  const rows = await sql<{ region: string; engine: string; workers: number }[]>`
    select region, b as engine, count(*)::int as workers from region_workers, unnest(browsers) as b
    where last_seen_at > ${onlineSince(sql, ttlSeconds, stallSeconds)} group by region, b`;
  const out = new Map<string, Map<string, number>>();
  for (const r of rows) out.set(r.region, (out.get(r.region) ?? new Map()).set(r.engine, r.workers));
  return out;
}

/** runner id → browser engines it reported (BROWSERS) in its last handshake or heartbeat; revoked runners left out. */
export async function runnerEngines(sql: Sql): Promise<Map<string, Set<string>>> {
  const rows = await sql<{ id: string; browsers: string[] }[]>`
    select id, browsers from runners where revoked_at is null and cardinality(browsers) > 0`;
  return new Map(rows.map((r) => [r.id, new Set(r.browsers)]));
}

/** Browser engines one runner reported. */
export async function browsersOfRunner(sql: Sql, runnerId: string): Promise<Set<string>> {
  const [row] = await sql<{ browsers: string[] }[]>`select browsers from runners where id = ${runnerId}`;
  return new Set(row?.browsers ?? []);
}
