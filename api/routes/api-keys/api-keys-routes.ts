import { Elysia, t } from "elysia";
import { createApiKey, deleteApiKey, listOrgApiKeys } from "../../../domain/accounts/api-keys.ts";
import { can } from "../../../domain/access/identity.ts";
import { SCOPES } from "../../../schemas/access/permissions.ts";
import type { ApiKeyRow } from "../../../db/queries/api-keys.ts";
import type { ApiDeps } from "../../context.ts";
import { authPlugin } from "../../middleware/auth.ts";
import { IdParams, Obj, PaginationQuery, paginated, Timestamp, toPage, DisplayName } from "../../schemas/common.ts";

const ScopeName = t.Union(SCOPES.map((s) => t.Literal(s)));
const ApiKeyView = t.Object({
  id: t.String(),
  name: t.String(),
  prefix: t.String({ description: "The first characters of the key, to recognise it" }),
  scopes: t.Array(t.String()),
  created_by: t.String(),
  created_by_key: t.Union([t.String(), t.Null()], { description: "The key that made this key (revoking it revokes this one), or null when a signed-in user did" }),
  created_at: Timestamp,
  last_used_at: t.Union([Timestamp, t.Null()]),
  expires_at: t.Union([Timestamp, t.Null()]),
});
const toView = (k: ApiKeyRow) => ({
  id: k.id,
  name: k.name,
  prefix: k.display_prefix,
  scopes: k.scopes,
  created_by: k.created_by,
  created_by_key: k.created_by_key,
  created_at: k.created_at.toISOString(),
  last_used_at: k.last_used_at?.toISOString() ?? null,
  expires_at: k.expires_at?.toISOString() ?? null,
});

/**
 * API keys of the active organisation. Managing them takes `api_keys:write`, for sessions and keys
 * alike; the service keeps each caller to keys within its own scopes (docs/api-conventions.md).
 */
export const apiKeyRoutes = (deps: ApiDeps) =>
  new Elysia({ prefix: "/api-keys", detail: { tags: ["api-keys"] } })
    .use(authPlugin)
    .guard({ requires: "api_keys:write" }, (app) =>
      app
        .post(
          "",
          async ({ actor, body, set }) => {
            const { row, key } = await createApiKey({ sql: deps.sql, actor }, body);
            set.status = 201;
            return { ...toView(row), key };
          },
          {
            body: Obj({
              name: DisplayName(100),
              scopes: t.Array(ScopeName, { minItems: 1, maxItems: SCOPES.length }),
              expires_at: t.Optional(t.String({ format: "date-time" })),
            }),
            response: { 201: t.Composite([ApiKeyView, t.Object({ key: t.String({ description: "wp_live_…; shown only in this response" }) })]) },
            detail: { summary: "Create an API key (the key is shown once)" },
          },
        )
        .get("/scopes", ({ actor }) => ({ data: SCOPES.filter((s) => can(actor.identity, s)), all: [...SCOPES] }), {
          response: { 200: t.Object({ data: t.Array(t.String(), { description: "Scopes you may put on a new key (never beyond your role)" }), all: t.Array(t.String()) }) },
          detail: { summary: "The scopes you may grant a new key, and every scope" },
        })
        .get(
          "",
          async ({ actor, query }) => {
            const { rows, total } = await listOrgApiKeys({ sql: deps.sql, actor }, query.limit, (query.page - 1) * query.limit);
            return toPage(rows.map(toView), total, query.page, query.limit);
          },
          { query: Obj(PaginationQuery), response: { 200: paginated(ApiKeyView) }, detail: { summary: "Live API keys you may revoke: within your scopes, and only your own without org:admin (never the keys themselves)" } },
        )
        .delete(
          "/:id",
          async ({ actor, params, set }) => {
            await deleteApiKey({ sql: deps.sql, actor }, params.id);
            set.status = 204;
          },
          { params: IdParams, detail: { summary: "Revoke an API key; it stops working at once" } },
        ),
    );
