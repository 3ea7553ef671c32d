import { Elysia, t } from "elysia";
import type { ApiDeps } from "../context.ts";
import { BADGE_PERIODS } from "../../domain/status-pages/badges.ts";
import { createBadges } from "./badges.ts";
import { PublicStatusPage } from "./schemas.ts";
import { createStatusSite, type PageAddress, type PublicView } from "./status-site.ts";

const PUBLIC = { security: [], tags: ["public status pages"] };

/** OpenAPI responses of the public surfaces (they answer HTML, feeds and SVG, not the API's JSON). */
const text = (type: string, description: string) => ({ description, content: { [type]: { schema: { type: "string" as const } } } });
const ERROR = { schema: { $ref: "#/components/schemas/Error" } };
/** HTML to a browser (Accept: text/html), the API's error body to everything else. */
const NOT_FOUND = {
  description: "No such page, or the caller may not see it: unknown, private (members only), outside the IP allow-list",
  content: { "text/html": { schema: { type: "string" as const } }, "application/json": ERROR },
};
const PASSWORD = { description: "Password-protected page without its access cookie: sign in at the page (POST …/login)", content: { "application/json": ERROR } };
const SUSPENDED = { description: "The page is suspended over the plan's quota (code STATUS_PAGE_SUSPENDED)", content: { "application/json": ERROR } };
const INVALID = { description: "VALIDATION_ERROR: a parameter failed validation", content: { "application/json": ERROR } };
/** A link that is not ours (HTML), or a parameter failing validation (the error body). */
const BAD_LINK = { description: "Invalid or expired link, on an unknown page too (HTML; the token names the page, so there is no 404), or a parameter failed validation (the error body)", content: { "text/html": { schema: { type: "string" as const } }, "application/json": ERROR } };
const FORM = { required: true, content: { "application/x-www-form-urlencoded": { schema: { type: "object" as const } } } };
const responses = (ok: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  responses: { ...ok, 304: { description: "Not modified (If-None-Match matched the ETag)" }, 404: NOT_FOUND, ...extra },
});
const HTML_PAGE = responses(
  { 200: text("text/html", "The page: overall status, components with 90-day bars, incidents, maintenance, subscribe form") },
  { 401: text("text/html", "Password form (password-protected page without a valid access cookie)"), 503: text("text/html", "The page is suspended over the plan's quota") },
);
const SVG = responses(
  { 200: text("image/svg+xml", "The badge (badge-maker, flat style); Cache-Control public, max-age=60 for public pages, private otherwise") },
  { 400: INVALID, 404: { description: "No such monitor or component, or not on a public page", content: { "text/plain": { schema: { type: "string" as const } } } } },
);
const Slug = t.Object({ slug: t.String({ maxLength: 64 }) });
const BadgeParams = t.Object({ id: t.String({ maxLength: 64 }) });

/** Paths a verified custom domain answers at its root, the methods of each (GET includes HEAD), and what it is. */
const DOMAIN_PATHS: Record<string, { methods: string[]; handle: "html" | "json" | "rss" | "atom" | "login" | "subscribe" | "confirm" }> = {
  "/": { methods: ["GET"], handle: "html" },
  "/index.json": { methods: ["GET"], handle: "json" },
  "/feed.rss": { methods: ["GET"], handle: "rss" },
  "/feed.atom": { methods: ["GET"], handle: "atom" },
  "/login": { methods: ["POST"], handle: "login" },
  "/subscribe": { methods: ["POST"], handle: "subscribe" },
  // GET asks, POST confirms (the emailed link must not confirm when a mail scanner fetches it).
  "/confirm": { methods: ["GET", "POST"], handle: "confirm" },
};

/**
 * Unauthenticated status pages, feeds and badges, outside /api/v1 (so the anonymous API rate limit
 * does not apply; the pages are served from a render cache). Also answers verified custom domains.
 */
export function publicRoutes(deps: ApiDeps) {
  const site = createStatusSite(deps);
  const badges = createBadges(deps, site);
  const ownHost = new URL(deps.config.PUBLIC_BASE_URL ?? "http://127.0.0.1").hostname;

  const dispatch = (request: Request, addr: PageAddress | null, what: (typeof DOMAIN_PATHS)[string]["handle"]) => {
    if (what === "login") return site.login(request, addr);
    if (what === "subscribe") return site.subscribe(request, addr);
    if (what === "confirm") return site.confirm(request, addr);
    return site.view(request, addr, what as PublicView);
  };

  return new Elysia({ name: "public-status-pages" })
    .onRequest(async ({ request }) => {
      const host = (request.headers.get("host") ?? "").replace(/:\d+$/, "").toLowerCase();
      if (!host || host === ownHost || host === "localhost" || /^[\d.]+$|^\[/.test(host) || !host.includes(".")) return;
      const path = new URL(request.url).pathname;
      const route = DOMAIN_PATHS[path];
      if (!route || !route.methods.includes(request.method === "HEAD" ? "GET" : request.method)) return;
      const addr = await site.byDomain(host, deps.config.TRUST_PROXY ? request.headers.get("x-forwarded-proto") === "https" : request.url.startsWith("https:"));
      if (!addr) return;
      return dispatch(request, addr, route.handle);
    })
    .get("/status/:slug", async ({ request, params }) => site.view(request, await site.bySlug(params.slug), "html"), {
      params: Slug,
      detail: { ...PUBLIC, summary: "Public status page (HTML, works without JavaScript)", ...HTML_PAGE },
    })
    .get("/status/:slug/index.json", async ({ request, params }) => site.view(request, await site.bySlug(params.slug), "json"), {
      params: Slug,
      detail: { ...PUBLIC, summary: "The status page's data as JSON", ...responses({ 200: { description: "Page, overall status, sections and components with daily bars, incidents, maintenance", content: { "application/json": { schema: PublicStatusPage } } } }, { 401: PASSWORD, 503: SUSPENDED }) },
    })
    .get("/status/:slug/feed.rss", async ({ request, params }) => site.view(request, await site.bySlug(params.slug), "rss"), {
      params: Slug,
      detail: { ...PUBLIC, summary: "Incidents as RSS 2.0", ...responses({ 200: text("application/rss+xml", "Active and recent incidents") }, { 401: PASSWORD, 503: SUSPENDED }) },
    })
    .get("/status/:slug/feed.atom", async ({ request, params }) => site.view(request, await site.bySlug(params.slug), "atom"), {
      params: Slug,
      detail: { ...PUBLIC, summary: "Incidents as Atom", ...responses({ 200: text("application/atom+xml", "Active and recent incidents") }, { 401: PASSWORD, 503: SUSPENDED }) },
    })
    .post("/status/:slug/login", async ({ request, params }) => site.login(request, await site.bySlug(params.slug)), {
      params: Slug,
      parse: "none",
      detail: {
        ...PUBLIC,
        summary: "Password form of a password-protected page; sets a signed access cookie",
        requestBody: FORM,
        responses: {
          303: { description: "Right password: sets the wp_sp_<pageId> cookie and redirects to the page" },
          401: text("text/html", "Wrong password: the form again"),
          403: text("text/html", "Posted from another site's page (Origin / Sec-Fetch-Site): login CSRF is refused"),
          404: NOT_FOUND,
          429: text("text/html", "More than 10 attempts a minute from this address, or the page's own throttle after 5 failures (Retry-After; docs/security.md)"),
        },
      },
    })
    .post("/status/:slug/subscribe", async ({ request, params }) => site.subscribe(request, await site.bySlug(params.slug)), {
      params: Slug,
      parse: "none",
      detail: {
        ...PUBLIC,
        summary: "Subscribe form (email); sends a confirmation link (double opt-in)",
        requestBody: FORM,
        responses: { 200: text("text/html", "Check your inbox (the same answer for a known address)"), 400: { description: "Not an email address (the form again, HTML), or a parameter failed validation (the error body)", content: { "text/html": { schema: { type: "string" as const } }, "application/json": ERROR } }, 404: NOT_FOUND, 429: text("text/html", "More than 10 a minute from this address") },
      },
    })
    .get("/status/:slug/confirm", async ({ request, params }) => site.confirm(request, await site.bySlug(params.slug)), {
      params: Slug,
      detail: {
        ...PUBLIC,
        summary: "The link of the confirmation email (?token=…): a page asking to confirm; changes nothing (mail scanners prefetch links)",
        responses: { 200: text("text/html", "A Confirm subscription button (POST to this URL), or Subscribed when already confirmed"), 400: BAD_LINK },
      },
    })
    .post("/status/:slug/confirm", async ({ request, params }) => site.confirm(request, await site.bySlug(params.slug)), {
      params: Slug,
      parse: "none",
      detail: {
        ...PUBLIC,
        summary: "Confirms an email subscription (the button of the confirmation page, ?token=…)",
        responses: { 200: text("text/html", "Subscribed"), 400: BAD_LINK },
      },
    })
    .get("/badge/:id/status.svg", ({ request, params }) => badges.badge(request, params.id, "status"), {
      params: BadgeParams,
      detail: { ...PUBLIC, summary: "Current status badge of a monitor (mon_…) or status-page component (spc_…)", ...SVG },
    })
    .get("/badge/:id/uptime.svg", ({ request, params }) => badges.badge(request, params.id, "uptime"), {
      params: BadgeParams,
      query: t.Object({ period: t.Optional(t.Union(BADGE_PERIODS.map((p) => t.Literal(p)), { default: "30d", description: "Uptime period" })) }),
      detail: { ...PUBLIC, summary: "Uptime badge; ?period=24h|7d|30d|90d (default 30d)", ...SVG },
    })
    .get("/badge/:id/response-time.svg", ({ request, params }) => badges.badge(request, params.id, "response-time"), {
      params: BadgeParams,
      detail: { ...PUBLIC, summary: "Average response time over 24 hours", ...SVG },
    });
}
