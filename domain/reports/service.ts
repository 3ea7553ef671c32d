import type { SecretBox } from "../../core/crypto/secrets.ts";
import { notFound, validationError, type ValidationIssue } from "../../core/errors.ts";
import { newId } from "../../core/ids.ts";
import { type Sql, withTx } from "../../db/client.ts";
import {
  clearUnsubscribes,
  deleteReport,
  findReport,
  findReportById,
  insertReport,
  insertUnsubscribe,
  listReports,
  memberEmails,
  type ReportRecipient,
  type ReportRow,
  type ReportWrite,
  statusPageName,
  updateReport,
} from "../../db/queries/reports.ts";
import { isValidTimeZone } from "../../schemas/maintenance/zoned-time.ts";
import type { Actor } from "../access/actor.ts";
import { deliverableEmails, enqueueReportMail, normaliseEmail, recipientStates, type RecipientState } from "./recipients.ts";
import { lastCompletePeriod, nextSendAt, type ReportPeriod } from "./schedule.ts";
import { verifyReportUnsubscribe } from "./tokens.ts";

interface Ctx {
  sql: Sql;
  actor: Actor;
  now?: () => Date;
}

export interface ReportInput {
  name: string;
  scope: "org" | "status_page";
  status_page_id?: string | null;
  frequency: "weekly" | "monthly";
  day: number;
  send_time: string;
  timezone: string;
  recipients: ReportRecipient[];
  enabled?: boolean;
}

export type ReportDetails = ReportRow & { recipient_states: RecipientState[] };

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const nowOf = (ctx: { now?: () => Date }) => ctx.now?.() ?? new Date();

const details = async (sql: Sql, row: ReportRow): Promise<ReportDetails> => ({ ...row, recipient_states: await recipientStates(sql, row) });

async function prepare(ctx: Ctx, input: Required<ReportInput>): Promise<ReportWrite> {
  const issues: ValidationIssue[] = [];
  if (!isValidTimeZone(input.timezone)) issues.push({ path: "body.timezone", message: `Unknown time zone "${input.timezone}"; use an IANA name such as Europe/Berlin` });
  if (input.frequency === "weekly" && input.day > 7) issues.push({ path: "body.day", message: "A weekly report's day is an ISO weekday: 1 (Monday) to 7 (Sunday)" });
  const pageId = input.scope === "status_page" ? (input.status_page_id ?? null) : null;
  if (input.scope === "status_page" && !pageId) issues.push({ path: "body.status_page_id", message: "A status-page report needs status_page_id" });
  if (input.scope === "org" && input.status_page_id) issues.push({ path: "body.status_page_id", message: "status_page_id applies to status-page reports only (scope status_page)" });
  if (pageId && !(await statusPageName(ctx.sql, ctx.actor.orgId, pageId))) issues.push({ path: "body.status_page_id", message: `Unknown status page: ${pageId}` });
  const recipients: ReportRecipient[] = [];
  const seen = new Set<string>();
  input.recipients.forEach((r, i) => {
    const key = r.type === "member" ? `m:${r.user_id}` : `e:${normaliseEmail(r.email)}`;
    if (r.type === "email" && !EMAIL.test(r.email.trim())) issues.push({ path: `body.recipients.${i}.email`, message: `Not an email address: ${r.email}` });
    if (seen.has(key)) return;
    seen.add(key);
    recipients.push(r.type === "member" ? { type: "member", user_id: r.user_id } : { type: "email", email: normaliseEmail(r.email) });
  });
  const members = recipients.flatMap((r) => (r.type === "member" ? [r.user_id] : []));
  const known = await memberEmails(ctx.sql, ctx.actor.orgId, members);
  const strangers = members.filter((id) => !known.has(id));
  if (strangers.length) issues.push({ path: "body.recipients", message: `Not a member of this organisation: ${strangers.join(", ")}` });
  if (issues.length) throw validationError(issues);
  const schedule = { frequency: input.frequency, day: input.day, send_time: input.send_time, timezone: input.timezone };
  return { name: input.name.trim(), scope: input.scope, status_page_id: pageId, ...schedule, recipients, enabled: input.enabled, next_send_at: nextSendAt(schedule, nowOf(ctx)) };
}

export async function createReport(ctx: Ctx, input: ReportInput): Promise<ReportDetails> {
  const write = await prepare(ctx, { status_page_id: null, enabled: true, ...input });
  return details(ctx.sql, await insertReport(ctx.sql, newId("rep"), ctx.actor.orgId, write));
}

export async function getReport(ctx: Ctx, id: string): Promise<ReportDetails> {
  const row = await findReport(ctx.sql, ctx.actor.orgId, id);
  if (!row) throw notFound("Report");
  return details(ctx.sql, row);
}

export async function listOrgReports(ctx: Ctx, limit: number, offset: number): Promise<{ rows: ReportDetails[]; total: number }> {
  const { rows, total } = await listReports(ctx.sql, ctx.actor.orgId, limit, offset);
  return { rows: await Promise.all(rows.map((r) => details(ctx.sql, r))), total };
}

/** A PATCH: the given fields over the stored ones, checked as a whole; the next send follows the new schedule. */
export async function patchReport(ctx: Ctx, id: string, patch: Partial<ReportInput>): Promise<ReportDetails> {
  return withTx(ctx.sql, async (tx) => {
    const current = await findReport(tx, ctx.actor.orgId, id);
    if (!current) throw notFound("Report");
    const { id: _id, org_id: _org, next_send_at: _n, last_sent_at: _l, created_at: _c, updated_at: _u, ...stored } = current;
    const merged = { ...stored, ...patch };
    if (patch.scope === "org" && patch.status_page_id === undefined) merged.status_page_id = null;
    const write = await prepare({ ...ctx, sql: tx }, merged as Required<ReportInput>);
    // Naming an address that was not on the list before subscribes it again.
    const before = new Set((await recipientStates(tx, current)).flatMap((s) => (s.email ? [s.email] : [])));
    const after = await recipientStates(tx, { ...current, recipients: write.recipients });
    await clearUnsubscribes(tx, id, after.flatMap((s) => (s.email && !before.has(s.email) ? [s.email] : [])));
    const row = await updateReport(tx, ctx.actor.orgId, id, write);
    return details(tx, row!);
  });
}

export async function removeReport(ctx: Ctx, id: string): Promise<void> {
  if (!(await deleteReport(ctx.sql, ctx.actor.orgId, id))) throw notFound("Report");
}

/**
 * "Send now": the report of the last complete period, queued for the signed-in caller (`me`, the
 * default: a preview) or for every recipient. It is marked as a preview and never counts as the
 * period's scheduled mail, which still goes out on schedule.
 */
export async function sendReportNow(ctx: Ctx, deps: { box: SecretBox; baseUrl: string }, id: string, to: "me" | "recipients"): Promise<{ queued: number; period: ReportPeriod }> {
  const report = await findReport(ctx.sql, ctx.actor.orgId, id);
  if (!report) throw notFound("Report");
  const period = lastCompletePeriod(report, nowOf(ctx));
  let addresses: string[];
  if (to === "me") {
    const mine = ctx.actor.identity.kind === "session" ? ctx.actor.identity.email : (await memberEmails(ctx.sql, ctx.actor.orgId, [ctx.actor.userId])).get(ctx.actor.userId);
    if (!mine) throw validationError([{ path: "body.to", message: "This caller has no email address; send to the recipients instead" }]);
    addresses = [normaliseEmail(mine)];
  } else {
    addresses = await deliverableEmails(ctx.sql, report);
    if (addresses.length === 0) throw validationError([{ path: "body.to", message: "The report has no subscribed recipients" }]);
  }
  const queued = await withTx(ctx.sql, (tx) => enqueueReportMail(tx, deps, report, period, addresses, true));
  return { queued, period };
}

export type ReportUnsubscribeLookup = { ok: false } | { ok: true; report: string; subscribed: boolean };

/** What an unsubscribe link names, changing nothing (mail scanners fetch every link). */
export async function lookUpReportUnsubscribe(sql: Sql, box: SecretBox, token: string): Promise<ReportUnsubscribeLookup> {
  const claims = verifyReportUnsubscribe(box, token);
  if (!claims) return { ok: false };
  const report = await findReportById(sql, claims.reportId);
  if (!report) return { ok: true, report: "", subscribed: false };
  const states = await recipientStates(sql, report);
  return { ok: true, report: report.name, subscribed: states.some((s) => s.email === claims.email && !s.unsubscribed) };
}

/** One-click unsubscribe (POST): idempotent; the address gets no more mail of this report. */
export async function unsubscribeFromReport(sql: Sql, box: SecretBox, token: string): Promise<{ ok: false } | { ok: true; report: string; removed: boolean }> {
  const claims = verifyReportUnsubscribe(box, token);
  if (!claims) return { ok: false };
  const report = await findReportById(sql, claims.reportId);
  if (!report) return { ok: true, report: "", removed: false };
  return { ok: true, report: report.name, removed: await insertUnsubscribe(sql, report.id, claims.email) };
}
