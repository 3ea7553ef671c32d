import { Elysia, t } from "elysia";
import { validationError } from "../../../core/errors.ts";
import { lookUpReportUnsubscribe, unsubscribeFromReport } from "../../../domain/reports/service.ts";
import { renderConfirmForm, renderMessage } from "../../../domain/status-pages/render-html.ts";
import { BUILT_IN_THEMES } from "../../../domain/status-pages/themes.ts";
import type { ApiDeps } from "../../context.ts";
import { html } from "../../public/respond.ts";

const Query = t.Object({ token: t.String({ minLength: 1, maxLength: 1000, description: "Signed token from the report email (report, address, expiry)" }) });
const Name = t.Union([t.String(), t.Null()], { description: "The report's name; null when it was deleted" });
const Result = t.Object({ unsubscribed: t.Literal(true), removed: t.Boolean({ description: "false when it was already unsubscribed (idempotent)" }), report: Name });
const Preview = t.Object({ unsubscribed: t.Literal(false), subscribed: t.Boolean({ description: "whether the address still gets this report; POST the same URL to stop it" }), report: Name });

const THEME = BUILT_IN_THEMES.light;
const wantsHtml = (request: Request) => (request.headers.get("accept") ?? "").includes("text/html");
const invalid = (request: Request) => {
  if (wantsHtml(request)) return html(400, renderMessage("Link not valid", "This unsubscribe link is invalid or has expired. Use the link in a newer report email.", THEME)) as never;
  throw validationError([{ path: "query.token", message: "invalid or expired unsubscribe token" }], "Invalid or expired unsubscribe token");
};
const named = (name: string) => (name ? ` “${name}”` : "");

/**
 * One-click unsubscribe from a report, as for status-page mail (api/routes/unsubscribe): the signed
 * token is the credential; GET only shows what the link does and asks (mail scanners fetch links), POST
 * unsubscribes: the page's button and RFC 8058 one-click from the mail client.
 */
export const reportUnsubscribeRoutes = (deps: ApiDeps) =>
  new Elysia({ prefix: "/reports/unsubscribe", detail: { tags: ["reports"] } })
    .get(
      "",
      async ({ request, query }) => {
        const found = await lookUpReportUnsubscribe(deps.sql, deps.box, query.token);
        if (!found.ok) return invalid(request);
        const name = found.report || null;
        if (!wantsHtml(request)) return { unsubscribed: false as const, subscribed: found.subscribed, report: name };
        if (!found.subscribed) return html(200, renderMessage("Unsubscribed", `You do not receive the report${named(found.report)} any more.`, THEME)) as never;
        const form = { action: `/api/v1/reports/unsubscribe?token=${encodeURIComponent(query.token)}`, button: "Unsubscribe", fields: { "List-Unsubscribe": "One-Click" } };
        return html(200, renderConfirmForm("Unsubscribe?", `Stop receiving the report${named(found.report)}?`, THEME, form)) as never;
      },
      {
        query: Query,
        response: { 200: Preview },
        detail: { security: [], summary: "What a report's unsubscribe link would do; changes nothing (HTML page with an Unsubscribe button for browsers, JSON otherwise)" },
      },
    )
    .post(
      "",
      async ({ request, query }) => {
        const outcome = await unsubscribeFromReport(deps.sql, deps.box, query.token);
        if (!outcome.ok) return invalid(request);
        if (wantsHtml(request)) return html(200, renderMessage("Unsubscribed", `You will no longer receive the report${named(outcome.report)}.`, THEME)) as never;
        return { unsubscribed: true as const, removed: outcome.removed, report: outcome.report || null };
      },
      {
        query: Query,
        response: { 200: Result },
        parse: "none",
        detail: { security: [], summary: "Unsubscribes from a report: the confirmation page's button, and RFC 8058 one-click; idempotent" },
      },
    );
