import type { Sql } from "../client.ts";

export type ReportRecipient = { type: "member"; user_id: string } | { type: "email"; email: string };

export interface ReportRow {
  id: string;
  org_id: string;
  name: string;
  scope: "org" | "status_page";
  status_page_id: string | null;
  frequency: "weekly" | "monthly";
  day: number;
  send_time: string;
  timezone: string;
  recipients: ReportRecipient[];
  enabled: boolean;
  next_send_at: Date;
  last_sent_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export type ReportWrite = Pick<ReportRow, "name" | "scope" | "status_page_id" | "frequency" | "day" | "send_time" | "timezone" | "recipients" | "enabled" | "next_send_at">;

export async function insertReport(sql: Sql, id: string, orgId: string, r: ReportWrite): Promise<ReportRow> {
  const [row] = await sql<ReportRow[]>`
    insert into reports (id, org_id, name, scope, status_page_id, frequency, day, send_time, timezone, recipients, enabled, next_send_at)
    values (${id}, ${orgId}, ${r.name}, ${r.scope}, ${r.status_page_id}, ${r.frequency}, ${r.day}, ${r.send_time}, ${r.timezone},
      ${sql.json(r.recipients as never)}, ${r.enabled}, ${r.next_send_at})
    returning *`;
  return row!;
}

export async function updateReport(sql: Sql, orgId: string, id: string, r: ReportWrite): Promise<ReportRow | undefined> {
  const [row] = await sql<ReportRow[]>`
    update reports set name = ${r.name}, scope = ${r.scope}, status_page_id = ${r.status_page_id}, frequency = ${r.frequency}, day = ${r.day},
      send_time = ${r.send_time}, timezone = ${r.timezone}, recipients = ${sql.json(r.recipients as never)}, enabled = ${r.enabled},
      next_send_at = ${r.next_send_at}, updated_at = now()
    where org_id = ${orgId} and id = ${id}
    returning *`;
  return row;
}

export async function findReport(sql: Sql, orgId: string, id: string): Promise<ReportRow | undefined> {
  const [row] = await sql<ReportRow[]>`select * from reports where org_id = ${orgId} and id = ${id}`;
  return row;
}

export async function listReports(sql: Sql, orgId: string, limit: number, offset: number): Promise<{ rows: ReportRow[]; total: number }> {
  const rows = await sql<ReportRow[]>`select * from reports where org_id = ${orgId} order by created_at, id limit ${limit} offset ${offset}`;
  const [{ n }] = (await sql<{ n: number }[]>`select count(*)::int as n from reports where org_id = ${orgId}`) as unknown as [{ n: number }];
  return { rows: [...rows], total: n };
}

export async function deleteReport(sql: Sql, orgId: string, id: string): Promise<boolean> {
  const rows = await sql`delete from reports where org_id = ${orgId} and id = ${id} returning id`;
  return rows.length > 0;
}

/** Due reports, locked for this transaction (SKIP LOCKED: another process takes the others). */
export async function lockDueReports(tx: Sql, now: Date, limit: number, skip: readonly string[] = []): Promise<ReportRow[]> {
  return [
    ...(await tx<ReportRow[]>`
      select * from reports where enabled and next_send_at <= ${now} and id <> all(${[...skip]}::text[])
      order by next_send_at, id for update skip locked limit ${limit}`),
  ];
}

/** The idempotency key of one report's period: true when this call claimed it, false when it was already sent. */
export async function claimDelivery(tx: Sql, reportId: string, from: Date, to: Date, recipients: number): Promise<boolean> {
  const rows = await tx`
    insert into report_deliveries (report_id, period_start, period_end, recipients) values (${reportId}, ${from}, ${to}, ${recipients})
    on conflict do nothing returning report_id`;
  return rows.length > 0;
}

export async function markScheduled(tx: Sql, id: string, nextSendAt: Date, sentAt: Date | null): Promise<void> {
  await tx`update reports set next_send_at = ${nextSendAt}, last_sent_at = coalesce(${sentAt}, last_sent_at) where id = ${id}`;
}

/** The addresses of members among `userIds` who still belong to the organisation. */
export async function memberEmails(sql: Sql, orgId: string, userIds: readonly string[]): Promise<Map<string, string>> {
  if (userIds.length === 0) return new Map();
  const rows = await sql<{ id: string; email: string }[]>`
    select u.id, u.email from users u join memberships m on m.user_id = u.id and m.org_id = ${orgId} where u.id = any(${[...userIds]})`;
  return new Map(rows.map((r) => [r.id, r.email]));
}

export async function unsubscribedEmails(sql: Sql, reportId: string): Promise<Set<string>> {
  const rows = await sql<{ email: string }[]>`select email from report_unsubscribes where report_id = ${reportId}`;
  return new Set(rows.map((r) => r.email));
}

/** Idempotent: true when the address was subscribed until now. */
export async function insertUnsubscribe(sql: Sql, reportId: string, email: string): Promise<boolean> {
  const rows = await sql`insert into report_unsubscribes (report_id, email) values (${reportId}, ${email}) on conflict do nothing returning email`;
  return rows.length > 0;
}

/** An admin naming an address again (it was not in the list before) subscribes it again. */
export async function clearUnsubscribes(sql: Sql, reportId: string, emails: readonly string[]): Promise<void> {
  if (emails.length === 0) return;
  await sql`delete from report_unsubscribes where report_id = ${reportId} and email = any(${[...emails]})`;
}

export async function findReportById(sql: Sql, id: string): Promise<ReportRow | undefined> {
  const [row] = await sql<ReportRow[]>`select * from reports where id = ${id}`;
  return row;
}

// ---- the report's data ----

export interface ScopeMonitor {
  id: string;
  name: string;
  type: string;
}

/** Monitors a report covers: every monitor of the organisation, or those a status page shows (by monitor or by tag). */
export async function scopeMonitors(sql: Sql, orgId: string, statusPageId: string | null): Promise<ScopeMonitor[]> {
  if (statusPageId === null) return [...(await sql<ScopeMonitor[]>`select id, name, type from monitors where org_id = ${orgId} order by lower(name), id`)];
  return [
    ...(await sql<ScopeMonitor[]>`
      select m.id, m.name, m.type from monitors m
      where m.org_id = ${orgId} and exists (
        select 1 from status_page_components c
        where c.org_id = ${orgId} and c.page_id = ${statusPageId} and (c.monitor_id = m.id or (c.tag is not null and c.tag = any(m.tags))))
      order by lower(m.name), m.id`),
  ];
}

export interface PeriodIncident {
  id: string;
  title: string;
  impact: string;
  status: string;
  created_at: Date;
  resolved_at: Date | null;
}

/** Incidents open at any time during [from, to), of the organisation or shown on one page. */
export async function periodIncidents(sql: Sql, orgId: string, statusPageId: string | null, from: Date, to: Date): Promise<PeriodIncident[]> {
  const page = statusPageId === null ? sql`` : sql`and ${statusPageId} = any(page_ids)`;
  return [
    ...(await sql<PeriodIncident[]>`
      select id, title, impact, status, created_at, resolved_at from incidents
      where org_id = ${orgId} ${page} and created_at < ${to} and (resolved_at is null or resolved_at >= ${from})
      order by created_at, id limit 50`),
  ];
}

export async function statusPageName(sql: Sql, orgId: string, pageId: string): Promise<string | undefined> {
  const [row] = await sql<{ name: string }[]>`select name from status_pages where org_id = ${orgId} and id = ${pageId}`;
  return row?.name;
}

export async function orgName(sql: Sql, orgId: string): Promise<string> {
  const [row] = await sql<{ name: string }[]>`select name from organisations where id = ${orgId}`;
  return row?.name ?? orgId;
}
