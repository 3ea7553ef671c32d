import type { Sql } from "../client.ts";

export interface ThemeColors {
  background?: string;
  text?: string;
  accent?: string;
  muted?: string;
  surface?: string;
  border?: string;
  up?: string;
  degraded?: string;
  down?: string;
  maintenance?: string;
}

export interface ThemeRow {
  id: string;
  org_id: string;
  name: string;
  colors: ThemeColors;
  logo_url: string | null;
  favicon_url: string | null;
  custom_css: string;
  created_at: Date;
  updated_at: Date;
}

export interface ThemeWrite {
  name: string;
  colors: ThemeColors;
  logoUrl: string | null;
  faviconUrl: string | null;
  customCss: string;
}

export async function insertTheme(sql: Sql, orgId: string, id: string, t: ThemeWrite): Promise<ThemeRow> {
  const [row] = await sql<ThemeRow[]>`
    insert into themes (id, org_id, name, colors, logo_url, favicon_url, custom_css)
    values (${id}, ${orgId}, ${t.name}, ${sql.json(t.colors as never)}, ${t.logoUrl}, ${t.faviconUrl}, ${t.customCss}) returning *`;
  return row!;
}

export async function updateTheme(sql: Sql, orgId: string, id: string, t: ThemeWrite): Promise<ThemeRow | undefined> {
  const [row] = await sql<ThemeRow[]>`
    update themes set name = ${t.name}, colors = ${sql.json(t.colors as never)}, logo_url = ${t.logoUrl}, favicon_url = ${t.faviconUrl},
      custom_css = ${t.customCss}, updated_at = now()
    where org_id = ${orgId} and id = ${id} returning *`;
  return row;
}

export async function findTheme(sql: Sql, orgId: string, id: string): Promise<ThemeRow | undefined> {
  const [row] = await sql<ThemeRow[]>`select * from themes where org_id = ${orgId} and id = ${id}`;
  return row;
}

export async function listThemes(sql: Sql, orgId: string): Promise<ThemeRow[]> {
  return sql<ThemeRow[]>`select * from themes where org_id = ${orgId} order by created_at desc, id desc`;
}

export async function deleteTheme(sql: Sql, orgId: string, id: string): Promise<boolean> {
  const rows = await sql`delete from themes where org_id = ${orgId} and id = ${id} returning id`;
  return rows.length > 0;
}

export async function themeInUse(sql: Sql, orgId: string, id: string): Promise<boolean> {
  const [row] = await sql`select 1 from status_pages where org_id = ${orgId} and theme_id = ${id} limit 1`;
  return !!row;
}
