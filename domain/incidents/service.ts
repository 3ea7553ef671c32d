import type { Actor } from "../access/actor.ts";
import { type Sql, withTx } from "../../db/client.ts";
import { notFound, validationError } from "../../core/errors.ts";
import { newId } from "../../core/ids.ts";
import {
  findIncident,
  type IncidentImpact,
  type IncidentPlacement,
  type IncidentRow,
  type IncidentStatus,
  type IncidentUpdateRow,
  insertIncident,
  insertUpdate,
  listIncidents,
  updateIncident,
  updatesFor,
} from "../../db/queries/incidents.ts";
import { componentsByIds } from "../../db/queries/status-pages.ts";
import { enqueueSubscriberNotices } from "../../db/queries/subscriber-deliveries.ts";

export interface Ctx {
  sql: Sql;
  actor: Actor;
}

export interface IncidentInput {
  title: string;
  impact: IncidentImpact;
  status?: IncidentStatus;
  message: string;
  component_ids?: string[];
  page_ids?: string[];
}

export interface IncidentWithUpdates extends IncidentRow {
  updates: IncidentUpdateRow[];
}

/** The pages an incident shows on: those named, plus every page holding an affected component. */
async function placement(ctx: Ctx, componentIds: string[], pageIds: string[]): Promise<IncidentPlacement> {
  const components = await componentsByIds(ctx.sql, ctx.actor.orgId, [...new Set(componentIds)]);
  const missing = [...new Set(componentIds)].filter((id) => !components.some((c) => c.id === id));
  const issues = missing.length ? [{ path: "body.component_ids", message: `Unknown component(s): ${missing.join(", ")}` }] : [];
  const named = [...new Set(pageIds)];
  if (named.length) {
    const found = await ctx.sql<{ id: string }[]>`select id from status_pages where org_id = ${ctx.actor.orgId} and id = any(${named})`;
    const bad = named.filter((id) => !found.some((f) => f.id === id));
    if (bad.length) issues.push({ path: "body.page_ids", message: `Unknown status page(s): ${bad.join(", ")}` });
  }
  if (issues.length) throw validationError(issues);
  return { componentIds: components.map((c) => c.id), namedPageIds: named, pageIds: [...new Set([...named, ...components.map((c) => c.page_id)])] };
}

const placementOf = (i: IncidentRow): IncidentPlacement => ({ pageIds: i.page_ids, namedPageIds: i.named_page_ids, componentIds: i.component_ids });

export async function getIncident(ctx: Ctx, id: string): Promise<IncidentWithUpdates> {
  const row = await findIncident(ctx.sql, ctx.actor.orgId, id);
  if (!row) throw notFound("Incident");
  return { ...row, updates: await updatesFor(ctx.sql, ctx.actor.orgId, [id]) };
}

export async function createIncident(ctx: Ctx, input: IncidentInput): Promise<IncidentWithUpdates> {
  const where = await placement(ctx, input.component_ids ?? [], input.page_ids ?? []);
  const status = input.status ?? "investigating";
  const id = newId("inc");
  await withTx(ctx.sql, async (tx) => {
    await insertIncident(tx, ctx.actor.orgId, id, { title: input.title, impact: input.impact, status, ...where });
    const updateId = newId("incu");
    await insertUpdate(tx, ctx.actor.orgId, updateId, id, status, input.message);
    // Subscribers hear of it through the outbox, written with the change (alerting/notices/subscriber-notices.ts sends).
    await enqueueSubscriberNotices(tx, { orgId: ctx.actor.orgId, incidentId: id, updateId, kind: status === "resolved" ? "resolved" : "created", pageIds: where.pageIds });
  });
  return getIncident(ctx, id);
}

export async function patchIncident(
  ctx: Ctx,
  id: string,
  patch: Partial<Pick<IncidentInput, "title" | "impact" | "component_ids" | "page_ids">>,
): Promise<IncidentWithUpdates> {
  const current = await getIncident(ctx, id);
  const where =
    patch.component_ids || patch.page_ids
      ? await placement(ctx, patch.component_ids ?? current.component_ids, patch.page_ids ?? current.named_page_ids)
      : placementOf(current);
  await updateIncident(ctx.sql, ctx.actor.orgId, id, { title: patch.title ?? current.title, impact: patch.impact ?? current.impact, status: current.status, ...where });
  return getIncident(ctx, id);
}

/** Adds an update to the timeline; its status becomes the incident's (resolved resolves it). */
export async function postUpdate(ctx: Ctx, id: string, input: { status?: IncidentStatus; message: string; impact?: IncidentImpact }): Promise<IncidentWithUpdates> {
  const current = await getIncident(ctx, id);
  const status = input.status ?? current.status;
  await withTx(ctx.sql, async (tx) => {
    const updateId = newId("incu");
    await insertUpdate(tx, ctx.actor.orgId, updateId, id, status, input.message);
    await enqueueSubscriberNotices(tx, { orgId: ctx.actor.orgId, incidentId: id, updateId, kind: status === "resolved" ? "resolved" : "updated", pageIds: current.page_ids });
    await updateIncident(tx, ctx.actor.orgId, id, {
      title: current.title,
      impact: input.impact ?? current.impact,
      status,
      ...placementOf(current),
    });
  });
  return getIncident(ctx, id);
}

export const resolveIncident = (ctx: Ctx, id: string, message?: string) =>
  postUpdate(ctx, id, { status: "resolved", message: message ?? "This incident has been resolved." });

export async function removeIncident(ctx: Ctx, id: string): Promise<void> {
  const rows = await ctx.sql`delete from incidents where org_id = ${ctx.actor.orgId} and id = ${id} returning id`;
  if (rows.length === 0) throw notFound("Incident");
}

export async function listOrgIncidents(ctx: Ctx, filter: { status?: IncidentStatus | "active"; page_id?: string }, limit: number, offset: number) {
  const { rows, total } = await listIncidents(ctx.sql, ctx.actor.orgId, { status: filter.status, pageId: filter.page_id }, limit, offset);
  const updates = await updatesFor(ctx.sql, ctx.actor.orgId, rows.map((r) => r.id));
  return { rows: rows.map((r) => ({ ...r, updates: updates.filter((u) => u.incident_id === r.id) })), total };
}
