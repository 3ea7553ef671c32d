import type { Sql } from "../client.ts";

export type AccessMode = "public" | "password" | "members";

export interface StatusPageRow {
  id: string;
  org_id: string;
  name: string;
  slug: string;
  description: string;
  theme_id: string;
  access_mode: AccessMode;
  password_hash: string | null;
  ip_allowlist: string[];
  custom_domain: string | null;
  domain_token: string | null;
  domain_verified_at: Date | null;
  suspended: boolean;
  created_at: Date;
  updated_at: Date;
}

export interface StatusPageWrite {
  name: string;
  slug: string;
  description: string;
  themeId: string;
  accessMode: AccessMode;
  passwordHash: string | null;
  ipAllowlist: string[];
}

export interface SectionRow {
  id: string;
  page_id: string;
  name: string;
  position: number;
}

export interface ComponentRow {
  id: string;
  page_id: string;
  section_id: string;
  monitor_id: string | null;
  tag: string | null;
  display_name: string;
  description: string;
  position: number;
}

export interface LayoutWrite {
  sections: { id: string; name: string; components: { id: string; monitorId: string | null; tag: string | null; displayName: string; description: string }[] }[];
}

export async function insertPage(sql: Sql, orgId: string, id: string, p: StatusPageWrite): Promise<StatusPageRow> {
  const [row] = await sql<StatusPageRow[]>`
    insert into status_pages (id, org_id, name, slug, description, theme_id, access_mode, password_hash, ip_allowlist)
    values (${id}, ${orgId}, ${p.name}, ${p.slug}, ${p.description}, ${p.themeId}, ${p.accessMode}, ${p.passwordHash}, ${p.ipAllowlist})
    returning *`;
  return row!;
}

export async function updatePage(sql: Sql, orgId: string, id: string, p: StatusPageWrite): Promise<StatusPageRow | undefined> {
  const [row] = await sql<StatusPageRow[]>`
    update status_pages set name = ${p.name}, slug = ${p.slug}, description = ${p.description}, theme_id = ${p.themeId},
      access_mode = ${p.accessMode}, password_hash = ${p.passwordHash}, ip_allowlist = ${p.ipAllowlist}, updated_at = now()
    where org_id = ${orgId} and id = ${id} returning *`;
  return row;
}

export async function findPage(sql: Sql, orgId: string, id: string): Promise<StatusPageRow | undefined> {
  const [row] = await sql<StatusPageRow[]>`select * from status_pages where org_id = ${orgId} and id = ${id}`;
  return row;
}

/** Public lookup by slug (every organisation: slugs are unique per deployment). */
export async function findPageBySlug(sql: Sql, slug: string): Promise<StatusPageRow | undefined> {
  const [row] = await sql<StatusPageRow[]>`select * from status_pages where slug = ${slug}`;
  return row;
}

/** Public lookup by verified custom domain. */
export async function findPageByDomain(sql: Sql, domain: string): Promise<StatusPageRow | undefined> {
  const [row] = await sql<StatusPageRow[]>`select * from status_pages where custom_domain = ${domain} and domain_verified_at is not null`;
  return row;
}

export async function listPages(sql: Sql, orgId: string, limit: number, offset: number): Promise<{ rows: StatusPageRow[]; total: number }> {
  const rows = await sql<StatusPageRow[]>`select * from status_pages where org_id = ${orgId} order by created_at desc, id desc limit ${limit} offset ${offset}`;
  const [count] = await sql<{ n: number }[]>`select count(*)::int as n from status_pages where org_id = ${orgId}`;
  return { rows, total: count!.n };
}

export async function deletePage(sql: Sql, orgId: string, id: string): Promise<boolean> {
  const rows = await sql`delete from status_pages where org_id = ${orgId} and id = ${id} returning id`;
  return rows.length > 0;
}

export async function setDomain(sql: Sql, orgId: string, id: string, domain: string | null, token: string | null): Promise<StatusPageRow | undefined> {
  const [row] = await sql<StatusPageRow[]>`
    update status_pages set custom_domain = ${domain}, domain_token = ${token}, domain_verified_at = null, updated_at = now()
    where org_id = ${orgId} and id = ${id} returning *`;
  return row;
}

export async function markDomainVerified(sql: Sql, orgId: string, id: string): Promise<StatusPageRow | undefined> {
  const [row] = await sql<StatusPageRow[]>`
    update status_pages set domain_verified_at = coalesce(domain_verified_at, now()), updated_at = now()
    where org_id = ${orgId} and id = ${id} returning *`;
  return row;
}

export async function listSections(sql: Sql, pageId: string): Promise<SectionRow[]> {
  return sql<SectionRow[]>`select id, page_id, name, position from status_page_sections where page_id = ${pageId} order by position`;
}

export async function listComponents(sql: Sql, pageId: string): Promise<ComponentRow[]> {
  return sql<ComponentRow[]>`
    select id, page_id, section_id, monitor_id, tag, display_name, description, position
    from status_page_components where page_id = ${pageId} order by position`;
}

/** Components of an organisation by id (incident validation). */
export async function componentsByIds(sql: Sql, orgId: string, ids: string[]): Promise<ComponentRow[]> {
  if (ids.length === 0) return [];
  return sql<ComponentRow[]>`
    select id, page_id, section_id, monitor_id, tag, display_name, description, position
    from status_page_components where org_id = ${orgId} and id = any(${ids})`;
}

/** Replaces the whole layout of one page (call inside a transaction). Component ids that are kept stay the same. */
export async function replaceLayout(sql: Sql, orgId: string, pageId: string, layout: LayoutWrite): Promise<void> {
  await sql`delete from status_page_sections where page_id = ${pageId} and org_id = ${orgId}`;
  let componentPos = 0;
  for (const [i, s] of layout.sections.entries()) {
    await sql`insert into status_page_sections (id, org_id, page_id, name, position) values (${s.id}, ${orgId}, ${pageId}, ${s.name}, ${i})`;
    for (const c of s.components) {
      await sql`
        insert into status_page_components (id, org_id, page_id, section_id, monitor_id, tag, display_name, description, position)
        values (${c.id}, ${orgId}, ${pageId}, ${s.id}, ${c.monitorId}, ${c.tag}, ${c.displayName}, ${c.description}, ${componentPos++})`;
    }
  }
  await sql`update status_pages set updated_at = now() where id = ${pageId} and org_id = ${orgId}`;
}

export interface PageMonitorRow {
  id: string;
  name: string;
  status: string;
  tags: string[];
  paused: boolean;
  status_changed_at: Date | null;
  last_duration_ms: number | null;
}

/** Monitors of the organisation that the page's components name (by id or by tag). */
export async function monitorsForComponents(sql: Sql, orgId: string, monitorIds: string[], tags: string[]): Promise<PageMonitorRow[]> {
  return sql<PageMonitorRow[]>`
    select id, name, status, tags, paused, status_changed_at, (select s.last_duration_ms from monitor_state s where s.monitor_id = monitors.id) as last_duration_ms
    from monitors
    where org_id = ${orgId} and not suspended and (id = any(${monitorIds}) or tags && ${tags}::text[])`;
}

/** Pages (with their org) showing a monitor, directly or through a tag group; for badge access. */
export async function pagesShowingMonitor(sql: Sql, monitorId: string): Promise<StatusPageRow[]> {
  return sql<StatusPageRow[]>`
    select distinct p.* from status_pages p
    join status_page_components c on c.page_id = p.id
    join monitors m on m.id = ${monitorId} and m.org_id = p.org_id
    where c.monitor_id = m.id or c.tag = any(m.tags)`;
}

export async function findComponentPublic(sql: Sql, componentId: string): Promise<(ComponentRow & { org_id: string }) | undefined> {
  const [row] = await sql<(ComponentRow & { org_id: string })[]>`
    select id, org_id, page_id, section_id, monitor_id, tag, display_name, description, position from status_page_components where id = ${componentId}`;
  return row;
}

export async function findPageById(sql: Sql, id: string): Promise<StatusPageRow | undefined> {
  const [row] = await sql<StatusPageRow[]>`select * from status_pages where id = ${id}`;
  return row;
}

/** Average response time (ms) over [from, now) of some monitors' counted checks; null without data. Used by the badge. */
export async function averageDurationMs(sql: Sql, orgId: string, monitorIds: string[], from: Date): Promise<number | null> {
  const [row] = await sql<{ avg: number | null }[]>`
    select avg(duration_ms)::float8 as avg from check_results
    where org_id = ${orgId} and monitor_id = any(${monitorIds}) and scheduled_at >= ${from} and status <> 'unavailable'`;
  return row?.avg ?? null;
}
