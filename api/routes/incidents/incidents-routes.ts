import { Elysia } from "elysia";
import type { Actor } from "../../../domain/access/actor.ts";
import { publishLiveEvent } from "../../../domain/events/publish-live-event.ts";
import type { NoticeKind as IncidentNotice } from "../../../db/queries/subscriber-deliveries.ts";
import { createIncident, getIncident, type IncidentWithUpdates, listOrgIncidents, patchIncident, postUpdate, removeIncident, resolveIncident } from "../../../domain/incidents/service.ts";
import type { ApiDeps } from "../../context.ts";
import { authPlugin } from "../../middleware/auth.ts";
import { IdParams, paginated, toPage } from "../../schemas/common.ts";
import { IncidentCreateBody, IncidentListQuery, IncidentPatchBody, IncidentView, ResolveBody, UpdateBody } from "./schemas.ts";

function toIncidentView(i: IncidentWithUpdates) {
  return {
    id: i.id,
    title: i.title,
    impact: i.impact,
    status: i.status,
    component_ids: i.component_ids,
    page_ids: i.named_page_ids,
    shown_page_ids: i.page_ids,
    resolved_at: i.resolved_at?.toISOString() ?? null,
    created_at: i.created_at.toISOString(),
    updated_at: i.updated_at.toISOString(),
    updates: i.updates.map((u) => ({ id: u.id, status: u.status, message: u.message, created_at: u.created_at.toISOString() })),
  };
}

/** Incidents: create, change, post updates, resolve; each change goes to the live stream and to the pages' subscribers. */
export const incidentRoutes = (deps: ApiDeps) => {
  const ctx = (actor: Actor) => ({ sql: deps.sql, actor });
  /**
   * Publishes the live event once the change is committed. Subscriber notices were written in the
   * change's transaction; the API processes' dispatchers send them (startSubscriberDispatcher).
   */
  const announce = (kind: IncidentNotice, incident: IncidentWithUpdates) => {
    const view = toIncidentView(incident);
    publishLiveEvent(deps.bus, incident.org_id, `incident.${kind}`, view);
    return view;
  };
  return new Elysia({ prefix: "/incidents", detail: { tags: ["incidents"] } })
    .use(authPlugin)
    .guard({ requires: "incidents:read" }, (app) =>
      app
        .get(
          "",
          async ({ actor, query }) => {
            const { page, limit, ...filter } = query;
            const { rows, total } = await listOrgIncidents(ctx(actor), filter, limit, (page - 1) * limit);
            return toPage(rows.map(toIncidentView), total, page, limit);
          },
          { query: IncidentListQuery, response: { 200: paginated(IncidentView) }, detail: { summary: "List incidents, newest first; filter by status (or active) and page" } },
        )
        .get("/:id", async ({ actor, params }) => toIncidentView(await getIncident(ctx(actor), params.id)), {
          params: IdParams,
          response: { 200: IncidentView },
          detail: { summary: "One incident with its update timeline" },
        }),
    )
    .guard({ requires: "incidents:write" }, (app) =>
      app
        .post(
          "",
          async ({ actor, body, set }) => {
            set.status = 201;
            const incident = await createIncident(ctx(actor), body);
            return announce(incident.status === "resolved" ? "resolved" : "created", incident);
          },
          { body: IncidentCreateBody, response: { 201: IncidentView }, detail: { summary: "Open an incident (its first update carries the message); subscribers are notified" } },
        )
        .patch("/:id", async ({ actor, params, body }) => toIncidentView(await patchIncident(ctx(actor), params.id, body)), {
          params: IdParams,
          body: IncidentPatchBody,
          response: { 200: IncidentView },
          detail: { summary: "Change title, impact or placement (no notification; post an update to tell subscribers)" },
        })
        .post(
          "/:id/updates",
          async ({ actor, params, body, set }) => {
            set.status = 201;
            const incident = await postUpdate(ctx(actor), params.id, body);
            return announce(incident.status === "resolved" ? "resolved" : "updated", incident);
          },
          { params: IdParams, body: UpdateBody, response: { 201: IncidentView }, detail: { summary: "Post an update to the timeline (status optional); subscribers are notified" } },
        )
        .post("/:id/resolve", async ({ actor, params, body }) => announce("resolved", await resolveIncident(ctx(actor), params.id, body?.message)), {
          params: IdParams,
          body: ResolveBody,
          response: { 200: IncidentView },
          detail: { summary: "Resolve with a final update; subscribers are notified" },
        })
        .delete(
          "/:id",
          async ({ actor, params, set }) => {
            await removeIncident(ctx(actor), params.id);
            set.status = 204;
          },
          { params: IdParams, detail: { summary: "Delete an incident (no notification)" } },
        ),
    );
};
