import { Elysia, t } from "elysia";
import { validationError } from "../../../core/errors.ts";
import { renderMessage } from "../../../core/status-pages/render-html.ts";
import { unsubscribeByToken } from "../../../core/status-pages/subscribers.ts";
import { BUILT_IN_THEMES } from "../../../core/status-pages/themes.ts";
import type { ApiDeps } from "../../context.ts";
import { html } from "../../public/respond.ts";

const Query = t.Object({ token: t.String({ minLength: 1, maxLength: 1000, description: "Signed token from the email (subscriber, page, expiry)" }) });
const Result = t.Object({ unsubscribed: t.Literal(true), removed: t.Boolean({ description: "false when it was already removed (idempotent)" }), page: t.Union([t.String(), t.Null()]) });

/**
 * One-click unsubscribe from status-page emails, unauthenticated (the signed token is the credential).
 * GET is the link in the message; POST with `List-Unsubscribe=One-Click` is RFC 8058.
 */
export const unsubscribeRoutes = (deps: ApiDeps) => {
  const handle = async (request: Request, token: string) => {
    const outcome = await unsubscribeByToken(deps.sql, deps.box, token);
    const wantsHtml = request.method === "GET" && (request.headers.get("accept") ?? "").includes("text/html");
    if (!outcome.ok) {
      if (wantsHtml) return html(400, renderMessage("Link not valid", "This unsubscribe link is invalid or has expired. Use the link in a newer email, or ask the page's owner.", BUILT_IN_THEMES.light)) as never;
      throw validationError([{ path: "query.token", message: "invalid or expired unsubscribe token" }], "Invalid or expired unsubscribe token");
    }
    const name = outcome.page?.name ?? null;
    if (wantsHtml) return html(200, renderMessage("Unsubscribed", `You will no longer receive updates${name ? ` from ${name}` : ""}.`, BUILT_IN_THEMES.light)) as never;
    return { unsubscribed: true as const, removed: outcome.removed, page: name };
  };
  return new Elysia({ prefix: "/unsubscribe", detail: { tags: ["status-pages"] } })
    .get("", ({ request, query }) => handle(request, query.token), {
      query: Query,
      response: { 200: Result },
      detail: { security: [], summary: "One-click unsubscribe (HTML for browsers, JSON otherwise); idempotent" },
    })
    .post("", ({ request, query }) => handle(request, query.token), {
      query: Query,
      response: { 200: Result },
      parse: "none",
      detail: { security: [], summary: "RFC 8058 one-click unsubscribe (body List-Unsubscribe=One-Click); idempotent" },
    });
};
