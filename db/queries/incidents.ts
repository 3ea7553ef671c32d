import type { Sql } from "../client.ts";

export type IncidentImpact = "none" | "minor" | "major" | "critical";
export type IncidentStatus = "investigating" | "identified" | "monitoring" | "resolved";

export interface IncidentRow {
  id: string;
  org_id: string;
  title: string;
  impact: IncidentImpact;
  status: IncidentStatus;
  /** Every page the incident shows on: those named, and those of its components. */
  page_ids: string[];
  /** The pages named on their own. */
  named_page_ids: string[];
  component_ids: string[];
  resolved_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

/** Where an incident shows: the pages named, the components, and every page of either (page_ids). */
export interface IncidentPlacement {
  pageIds: string[];
  namedPageIds: string[];
  componentIds: string[];
}

export interface IncidentUpdateRow {
  id: string;
  incident_id: string;
  status: IncidentStatus;
  message: string;
  created_at: Date;
}

export async function insertIncident(
  sql: Sql,
  orgId: string,
  id: string,
  i: { title: string; impact: IncidentImpact; status: IncidentStatus } & IncidentPlacement,
): Promise<IncidentRow> {
  const [row] = await sql<IncidentRow[]>`
    insert into incidents (id, org_id, title, impact, status, page_ids, named_page_ids, component_ids, resolved_at)
    values (${id}, ${orgId}, ${i.title}, ${i.impact}, ${i.status}, ${i.pageIds}, ${i.namedPageIds}, ${i.componentIds}, ${i.status === "resolved" ? sql`now()` : null})
    returning *`;
  return row!;
}

export async function updateIncident(
  sql: Sql,
  orgId: string,
  id: string,
  i: { title: string; impact: IncidentImpact; status: IncidentStatus } & IncidentPlacement,
): Promise<IncidentRow | undefined> {
  const [row] = await sql<IncidentRow[]>`
    update incidents set title = ${i.title}, impact = ${i.impact}, status = ${i.status}, page_ids = ${i.pageIds}, named_page_ids = ${i.namedPageIds},
      component_ids = ${i.componentIds},
      resolved_at = case when ${i.status} = 'resolved' then coalesce(resolved_at, now()) else null end, updated_at = now()
    where org_id = ${orgId} and id = ${id} returning *`;
  return row;
}

export async function insertUpdate(sql: Sql, orgId: string, id: string, incidentId: string, status: IncidentStatus, message: string): Promise<IncidentUpdateRow> {
  const [row] = await sql<IncidentUpdateRow[]>`
    insert into incident_updates (id, org_id, incident_id, status, message) values (${id}, ${orgId}, ${incidentId}, ${status}, ${message})
    returning id, incident_id, status, message, created_at`;
  return row!;
}

export async function findIncident(sql: Sql, orgId: string, id: string): Promise<IncidentRow | undefined> {
  const [row] = await sql<IncidentRow[]>`select * from incidents where org_id = ${orgId} and id = ${id}`;
  return row;
}

export async function listIncidents(
  sql: Sql,
  orgId: string,
  f: { status?: IncidentStatus | "active"; pageId?: string },
  limit: number,
  offset: number,
): Promise<{ rows: IncidentRow[]; total: number }> {
  const where = sql`org_id = ${orgId}
    ${f.status === "active" ? sql`and status <> 'resolved'` : f.status ? sql`and status = ${f.status}` : sql``}
    ${f.pageId ? sql`and page_ids @> array[${f.pageId}]::text[]` : sql``}`;
  const rows = await sql<IncidentRow[]>`select * from incidents where ${where} order by created_at desc, id desc limit ${limit} offset ${offset}`;
  const [count] = await sql<{ n: number }[]>`select count(*)::int as n from incidents where ${where}`;
  return { rows, total: count!.n };
}

/** Unresolved incidents of a page, and those resolved since `since`; newest first. */
export async function incidentsForPage(sql: Sql, orgId: string, pageId: string, since: Date, limit = 50): Promise<IncidentRow[]> {
  return sql<IncidentRow[]>`
    select * from incidents where org_id = ${orgId} and page_ids @> array[${pageId}]::text[]
      and (status <> 'resolved' or resolved_at >= ${since})
    order by created_at desc, id desc limit ${limit}`;
}

export async function updatesFor(sql: Sql, orgId: string, incidentIds: string[]): Promise<IncidentUpdateRow[]> {
  if (incidentIds.length === 0) return [];
  return sql<IncidentUpdateRow[]>`
    select id, incident_id, status, message, created_at from incident_updates
    where org_id = ${orgId} and incident_id = any(${incidentIds}) order by created_at desc, id desc`;
}
