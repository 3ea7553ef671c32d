import { Elysia, t } from "elysia";
import type { Actor } from "../../../domain/access/actor.ts";
import { createTheme, getTheme, listAllThemes, patchTheme, removeTheme } from "../../../domain/status-pages/theme-service.ts";
import type { ApiDeps } from "../../context.ts";
import { authPlugin } from "../../middleware/auth.ts";
import { Obj, PaginationQuery, paginated } from "../../schemas/common.ts";
import { pageOf } from "../../schemas/page-of.ts";
import { ThemeCreateBody, ThemePatchBody, ThemeView } from "./schemas.ts";

const ThemeParams = Obj({ id: t.String({ minLength: 1, maxLength: 64 }) });

/** Built-in themes (light, dark, high-contrast; read-only) and the organisation's custom ones. */
export const themeRoutes = (deps: ApiDeps) => {
  const ctx = (actor: Actor) => ({ sql: deps.sql, actor });
  return new Elysia({ prefix: "/themes", detail: { tags: ["themes"] } })
    .use(authPlugin)
    .guard({ requires: "status_pages:read" }, (app) =>
      app
        .get("", async ({ actor, query }) => pageOf(await listAllThemes(ctx(actor)), query), {
          query: Obj(PaginationQuery),
          response: { 200: paginated(ThemeView) },
          detail: { summary: "Built-in themes first, then custom ones (newest first)" },
        })
        .get("/:id", ({ actor, params }) => getTheme(ctx(actor), params.id), { params: ThemeParams, response: { 200: ThemeView }, detail: { summary: "One theme" } }),
    )
    .guard({ requires: "status_pages:write" }, (app) =>
      app
        .post(
          "",
          async ({ actor, body, set }) => {
            set.status = 201;
            return createTheme(ctx(actor), body);
          },
          { body: ThemeCreateBody, response: { 201: ThemeView }, detail: { summary: "Create a custom theme; unsafe custom_css is refused with 400 (see docs/status-pages.md)" } },
        )
        .patch("/:id", ({ actor, params, body }) => patchTheme(ctx(actor), params.id, body), {
          params: ThemeParams,
          body: ThemePatchBody,
          response: { 200: ThemeView },
          detail: { summary: "Change a custom theme (built-ins are read-only: 403)" },
        })
        .delete(
          "/:id",
          async ({ actor, params, set }) => {
            await removeTheme(ctx(actor), params.id);
            set.status = 204;
          },
          { params: ThemeParams, detail: { summary: "Delete a custom theme; 409 while a page uses it" } },
        ),
    );
};
