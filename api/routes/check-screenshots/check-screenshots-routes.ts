import { Elysia, t } from "elysia";
import { getCheckScreenshot } from "../../../domain/results/screenshots.ts";
import type { ApiDeps } from "../../context.ts";
import { authPlugin } from "../../middleware/auth.ts";
import { Id, Obj } from "../../schemas/common.ts";

const ScreenshotParams = Obj({ id: Id, checkId: t.String({ minLength: 1, maxLength: 200, description: "Result id (`chk_…`) or the job id that produced it" }) });
const ScreenshotQuery = Obj({
  name: t.Optional(
    t.String({ pattern: "^[a-z0-9][a-z0-9_-]{0,39}$", description: "Which screenshot (the result's data.screenshots lists them); default: failure, else the first one" }),
  ),
});

/** The screenshots stored with a browser check's result. */
export const checkScreenshotRoutes = (deps: ApiDeps) =>
  new Elysia({ prefix: "/monitors", detail: { tags: ["monitors"] } }).use(authPlugin).guard({ requires: "monitors:read" }, (app) =>
    app.get(
      "/:id/checks/:checkId/screenshot",
      async ({ actor, params, query }) => {
        const file = await getCheckScreenshot({ sql: deps.sql, actor }, params.id, params.checkId, query.name);
        return new Response(new Uint8Array(file.bytes), {
          headers: {
            "content-type": file.content_type,
            // A result's screenshot never changes once stored.
            "cache-control": "private, max-age=86400, immutable",
            "content-disposition": `inline; filename="${params.checkId.replace(/[^A-Za-z0-9_.-]/g, "_")}-${file.name}.${file.content_type === "image/png" ? "png" : "jpg"}"`,
          },
        });
      },
      {
        params: ScreenshotParams,
        query: ScreenshotQuery,
        detail: {
          summary: "A screenshot stored with a browser check's result",
          description:
            "Browser checks (browser_lite, browser_flow) store a screenshot of the page when a check ends down or timeout (`failure`, unless screenshot_on_failure is false), and flows store one per screenshot step. The result's `data.screenshots` names them. Kept for the newest 100 results with screenshots of each monitor; 404 when the result has none of that name.",
          responses: {
            200: {
              description: "The image (JPEG)",
              content: { "image/jpeg": { schema: { type: "string", format: "binary" } }, "image/png": { schema: { type: "string", format: "binary" } } },
            },
          },
        },
      },
    ),
  );
