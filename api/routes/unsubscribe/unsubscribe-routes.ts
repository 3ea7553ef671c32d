import { Elysia, t } from "elysia";
import { validationError } from "../../../core/errors.ts";
import { renderConfirmForm, renderMessage } from "../../../domain/status-pages/render-html.ts";
import { lookUpUnsubscribe, unsubscribeByToken } from "../../../domain/status-pages/subscribers.ts";
import { BUILT_IN_THEMES } from "../../../domain/status-pages/themes.ts";
import type { ApiDeps } from "../../context.ts";
import { html } from "../../public/respond.ts";

const Query = t.Object({ token: t.String({ minLength: 1, maxLength: 1000, description: "Signed token from the email (subscriber, page, expiry)" }) });
const Page = t.Union([t.String(), t.Null()]);
const Result = t.Object({ unsubscribed: t.Literal(true), removed: t.Boolean({ description: "false when it was already removed (idempotent)" }), page: Page });
const Preview = t.Object({
  unsubscribed: t.Literal(false),
  subscribed: t.Boolean({ description: "whether the subscription still exists; POST the same URL to remove it" }),
  page: Page,
});

const THEME = BUILT_IN_THEMES.light;
const wantsHtml = (request: Request) => (request.headers.get("accept") ?? "").includes("text/html");
const invalid = (request: Request) => {
  if (wantsHtml(request)) return html(400, renderMessage("Link not valid", "This unsubscribe link is invalid or has expired. Use the link in a newer email, or ask the page's owner.", THEME)) as never;
  throw validationError([{ path: "query.token", message: "invalid or expired unsubscribe token" }], "Invalid or expired unsubscribe token");
};

/**
 * Unsubscribe from status-page emails, unauthenticated (the signed token is the credential). Mail
 * scanners and link previews fetch every link in a message, so GET only shows what the link would do
 * and asks; POST unsubscribes: the page's button, and mail clients' RFC 8058 one-click
 * (`List-Unsubscribe-Post: List-Unsubscribe=One-Click` on every message).
 */
export const unsubscribeRoutes = (deps: ApiDeps) =>
  new Elysia({ prefix: "/unsubscribe", detail: { tags: ["status-pages"] } })
    .get(
      "",
      async ({ request, query }) => {
        const found = await lookUpUnsubscribe(deps.sql, deps.box, query.token);
        if (!found.ok) return invalid(request);
        const name = found.page?.name ?? null;
        if (!wantsHtml(request)) return { unsubscribed: false as const, subscribed: found.subscribed, page: name };
        if (!found.subscribed) return html(200, renderMessage("Unsubscribed", `You are not subscribed to updates${name ? ` from ${name}` : ""} any more.`, THEME)) as never;
        const form = { action: `/api/v1/unsubscribe?token=${encodeURIComponent(query.token)}`, button: "Unsubscribe", fields: { "List-Unsubscribe": "One-Click" } };
        return html(200, renderConfirmForm("Unsubscribe?", `Stop receiving incident updates${name ? ` from ${name}` : ""}?`, THEME, form)) as never;
      },
      {
        query: Query,
        response: { 200: Preview },
        detail: { security: [], summary: "What an unsubscribe link would do; changes nothing (HTML page with an Unsubscribe button for browsers, JSON otherwise)" },
      },
    )
    .post(
      "",
      async ({ request, query }) => {
        const outcome = await unsubscribeByToken(deps.sql, deps.box, query.token);
        if (!outcome.ok) return invalid(request);
        const name = outcome.page?.name ?? null;
        if (wantsHtml(request)) return html(200, renderMessage("Unsubscribed", `You will no longer receive updates${name ? ` from ${name}` : ""}.`, THEME)) as never;
        return { unsubscribed: true as const, removed: outcome.removed, page: name };
      },
      {
        query: Query,
        response: { 200: Result },
        parse: "none",
        detail: { security: [], summary: "Unsubscribes: the confirmation page's button, and RFC 8058 one-click (body List-Unsubscribe=One-Click); idempotent" },
      },
    );
