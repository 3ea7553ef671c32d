import { Elysia, t } from "elysia";
import { listAudit } from "../../../db/queries/audit-log.ts";
import type { ApiDeps } from "../../context.ts";
import { authPlugin } from "../../middleware/auth.ts";
import { Obj, PaginationQuery, paginated, Timestamp, toPage, Int } from "../../schemas/common.ts";

const AuditView = t.Object({
  id: Int(),
  actor_type: t.String(),
  actor_id: t.Union([t.String(), t.Null()]),
  actor: t.String(),
  action: t.String(),
  target_type: t.String(),
  target_id: t.Union([t.String(), t.Null()]),
  ip: t.Union([t.String(), t.Null()]),
  details: t.Record(t.String(), t.Unknown()),
  created_at: Timestamp,
});

/** Who changed what and when; admins only. */
export const auditLogRoutes = (deps: ApiDeps) =>
  new Elysia({ prefix: "/audit-log", detail: { tags: ["organisation"] } }).use(authPlugin).get(
    "",
    async ({ actor, query }) => {
      const { rows, total } = await listAudit(
        deps.sql,
        actor.orgId,
        { actor: query.actor, action: query.action, target: query.target, from: query.from ? new Date(query.from) : undefined, to: query.to ? new Date(query.to) : undefined },
        query.limit,
        (query.page - 1) * query.limit,
      );
      const data = rows.map((r) => ({
        id: Number(r.id),
        actor_type: r.actor_type,
        actor_id: r.actor_id,
        actor: r.actor_label,
        action: r.action,
        target_type: r.target_type,
        target_id: r.target_id,
        ip: r.ip,
        details: r.details,
        created_at: r.created_at.toISOString(),
      }));
      return toPage(data, total, query.page, query.limit);
    },
    {
      requires: "org:admin",
      query: Obj({
        ...PaginationQuery,
        actor: t.Optional(t.String({ maxLength: 200, description: "User or key id, or the actor label" })),
        action: t.Optional(t.String({ maxLength: 100, description: "Exact action or a prefix such as api_keys" })),
        target: t.Optional(t.String({ maxLength: 100, description: "Target id or target type" })),
        from: t.Optional(t.String({ format: "date-time" })),
        to: t.Optional(t.String({ format: "date-time" })),
      }),
      response: { 200: paginated(AuditView) },
      detail: { summary: "Audit log, newest first" },
    },
  );
