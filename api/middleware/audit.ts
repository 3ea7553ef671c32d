import { Elysia } from "elysia";
import { actorLabel } from "../../domain/access/identity.ts";
import type { Sql } from "../../db/client.ts";
import type { Logger } from "../../core/log.ts";
import { insertAudit } from "../../db/queries/audit-log.ts";
import { requestMeta } from "../context.ts";

const WRITES = new Set(["POST", "PUT", "PATCH", "DELETE"]);
const VERB: Record<string, string> = { POST: "create", PUT: "update", PATCH: "update", DELETE: "delete" };

/** `/api/v1/monitors/:id/pause` + POST → `monitors.pause`; `/api/v1/api-keys/:id` + DELETE → `api_keys.delete`. */
function auditAction(method: string, route: string): { action: string; targetType: string } {
  const parts = route.replace(/^\/api\/v1\//, "").split("/").filter(Boolean);
  const statics = parts.filter((p) => !p.startsWith(":")).map((p) => p.replaceAll("-", "_"));
  const last = parts[parts.length - 1] ?? "";
  const isAction = method === "POST" && parts.length > 1 && !last.startsWith(":") && parts.some((p) => p.startsWith(":"));
  const action = isAction ? statics.join(".") : [...statics, VERB[method] ?? method.toLowerCase()].join(".");
  return { action, targetType: statics[0] ?? "unknown" };
}

/** Every successful write through the API lands in the audit log: who, what, which target, when, from where. */
export const auditPlugin = (sql: Sql, log: Logger) =>
  new Elysia({ name: "audit" }).onAfterHandle({ as: "global" }, async ({ request, route, params, set, responseValue }) => {
    if (!WRITES.has(request.method) || !route.startsWith("/api/v1/")) return;
    const status = typeof set.status === "number" ? set.status : 200;
    const identity = requestMeta.get(request)?.identity;
    if (status >= 400 || !identity?.orgId) return;
    const { action, targetType } = auditAction(request.method, route);
    const p = (params ?? {}) as Record<string, string>;
    const paramIds = Object.values(p);
    const body = (responseValue ?? null) as { id?: unknown; name?: unknown; title?: unknown } | null;
    const bodyId = body?.id;
    // The target's name as it was then, so the log reads "created monitor Shop API" after a rename or delete.
    const named = typeof body?.name === "string" ? body.name : typeof body?.title === "string" ? body.title : undefined;
    const targetId = paramIds[paramIds.length - 1] ?? (typeof bodyId === "string" ? bodyId : null);
    await insertAudit(sql, {
      orgId: identity.orgId,
      actorType: identity.kind === "api_key" ? "api_key" : "user",
      actorId: identity.kind === "api_key" ? identity.keyId : identity.userId,
      actorLabel: actorLabel(identity),
      action,
      targetType,
      targetId,
      ip: requestMeta.get(request)?.ip ?? null,
      details: { method: request.method, path: new URL(request.url).pathname, ...(named ? { name: named.slice(0, 200) } : {}) },
    }).catch((err) => log.error({ op: "audit.insert", err, action }, "audit write failed"));
  });
