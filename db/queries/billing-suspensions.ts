import type { Sql } from "../client.ts";

/** Resource kinds that are suspended over quota. Each maps to a fixed table and filter (never user input). */
export type SuspendableKind = "monitors" | "lite_browser" | "flow_browser" | "self_hosted_browser" | "runners" | "status_pages";

/** A browser monitor that runs only on self-hosted runners takes a self-hosted browser slot, not a cloud one. */
const SELF_HOSTED = "cardinality(runner_ids) > 0 and cardinality(regions) = 0";

export interface SuspendableRow {
  id: string;
  interval_seconds: number | null;
  suspended: boolean;
  created_at: Date;
}

const SOURCES: Record<SuspendableKind, { table: string; where: string; interval: boolean; remove: "delete" | "revoke" }> = {
  monitors: { table: "monitors", where: "type not in ('browser_lite', 'browser_flow')", interval: true, remove: "delete" },
  lite_browser: { table: "monitors", where: `type = 'browser_lite' and not (${SELF_HOSTED})`, interval: true, remove: "delete" },
  flow_browser: { table: "monitors", where: `type = 'browser_flow' and not (${SELF_HOSTED})`, interval: true, remove: "delete" },
  self_hosted_browser: { table: "monitors", where: `type in ('browser_lite', 'browser_flow') and ${SELF_HOSTED}`, interval: true, remove: "delete" },
  runners: { table: "runners", where: "revoked_at is null", interval: false, remove: "revoke" },
  status_pages: { table: "status_pages", where: "true", interval: false, remove: "delete" },
};

const present = new Map<string, boolean>();

/** Whether a colleague's table (runners, status pages) exists yet with a `suspended` column. */
async function tableSupportsSuspension(sql: Sql, kind: SuspendableKind): Promise<boolean> {
  const table = SOURCES[kind].table;
  if (present.get(table)) return true;
  const [row] = await sql<{ ok: boolean }[]>`
    select to_regclass(${table}) is not null and exists (
      select 1 from information_schema.columns where table_schema = current_schema() and table_name = ${table} and column_name = 'suspended') as ok`;
  if (row!.ok) present.set(table, true);
  return row!.ok;
}

/** Every resource of one kind, oldest first. */
export async function listSuspendable(sql: Sql, kind: SuspendableKind, orgId: string): Promise<SuspendableRow[]> {
  const s = SOURCES[kind];
  if (!(await tableSupportsSuspension(sql, kind))) return [];
  return sql.unsafe<SuspendableRow[]>(
    `select id, ${s.interval ? "interval_seconds" : "null::int as interval_seconds"}, suspended, created_at
     from ${s.table} where org_id = $1 and ${s.where} order by created_at, id`,
    [orgId],
  );
}

/** Counts the not-suspended resources of one kind (what occupies quota slots), optionally only those checking faster than `belowInterval`. */
export async function countActive(sql: Sql, kind: SuspendableKind, orgId: string, opts: { belowInterval?: number; excludeId?: string } = {}): Promise<number> {
  const s = SOURCES[kind];
  if (!(await tableSupportsSuspension(sql, kind))) return 0;
  const tier = opts.belowInterval !== undefined && s.interval ? ` and interval_seconds < ${Number(opts.belowInterval)}` : "";
  const [row] = await sql.unsafe<{ n: number }[]>(
    `select count(*)::int as n from ${s.table} where org_id = $1 and not suspended and id <> $2 and ${s.where}${tier}`,
    [orgId, opts.excludeId ?? ""],
  );
  return row!.n;
}

export async function setSuspended(sql: Sql, kind: SuspendableKind, orgId: string, ids: string[], suspended: boolean, at: Date = new Date()): Promise<void> {
  if (ids.length === 0) return;
  const s = SOURCES[kind];
  const touch = s.table === "status_pages" ? "" : ", updated_at = now()";
  await sql.unsafe(`update ${s.table} set suspended = $3${touch} where org_id = $1 and id = any($2) and suspended <> $3`, [orgId, ids, suspended]);
  if (suspended) {
    await sql`
      insert into billing_suspensions (resource_type, resource_id, org_id, suspended_at) select ${kind}, unnest(${ids}::text[]), ${orgId}, ${at}
      on conflict do nothing`;
  } else {
    await sql`delete from billing_suspensions where resource_type = ${kind} and resource_id = any(${ids})`;
  }
}

/** Suspensions older than `before` whose resource is still suspended; stale rows (resource gone or active) are dropped. */
export async function expiredSuspensions(sql: Sql, orgId: string, before: Date): Promise<{ kind: SuspendableKind; id: string }[]> {
  const rows = await sql<{ resource_type: SuspendableKind; resource_id: string; suspended_at: Date }[]>`
    select resource_type, resource_id, suspended_at from billing_suspensions where org_id = ${orgId}`;
  const out: { kind: SuspendableKind; id: string }[] = [];
  for (const r of rows) {
    const s = SOURCES[r.resource_type];
    const [still] = await sql.unsafe(`select 1 from ${s.table} where org_id = $1 and id = $2 and suspended and ${s.where}`, [orgId, r.resource_id]);
    if (!still) await sql`delete from billing_suspensions where resource_type = ${r.resource_type} and resource_id = ${r.resource_id}`;
    else if (r.suspended_at <= before) out.push({ kind: r.resource_type, id: r.resource_id });
  }
  return out;
}

/** Deletes (runners: revokes) one long-suspended resource. */
export async function removeSuspended(sql: Sql, kind: SuspendableKind, orgId: string, id: string): Promise<void> {
  const s = SOURCES[kind];
  if (s.remove === "revoke") await sql.unsafe(`update ${s.table} set revoked_at = now(), updated_at = now() where org_id = $1 and id = $2 and suspended`, [orgId, id]);
  else await sql.unsafe(`delete from ${s.table} where org_id = $1 and id = $2 and suspended`, [orgId, id]);
  await sql`delete from billing_suspensions where resource_type = ${kind} and resource_id = ${id}`;
}

export async function orgsWithSuspensions(sql: Sql): Promise<string[]> {
  const rows = await sql<{ org_id: string }[]>`select distinct org_id from billing_suspensions`;
  return rows.map((r) => r.org_id);
}
