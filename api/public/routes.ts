import { Elysia, t } from "elysia";
import type { ApiDeps } from "../context.ts";
import { createBadges } from "./badges.ts";
import { createStatusSite, type PageAddress, type PublicView } from "./status-site.ts";

const PUBLIC = { security: [], tags: ["public status pages"] };
const Slug = t.Object({ slug: t.String({ maxLength: 64 }) });
const BadgeParams = t.Object({ id: t.String({ maxLength: 64 }) });

/** Paths a verified custom domain answers at its root, and what each one is. */
const DOMAIN_PATHS: Record<string, { method: string; handle: "html" | "json" | "rss" | "atom" | "login" | "subscribe" | "confirm" }> = {
  "/": { method: "GET", handle: "html" },
  "/index.json": { method: "GET", handle: "json" },
  "/feed.rss": { method: "GET", handle: "rss" },
  "/feed.atom": { method: "GET", handle: "atom" },
  "/login": { method: "POST", handle: "login" },
  "/subscribe": { method: "POST", handle: "subscribe" },
  "/confirm": { method: "GET", handle: "confirm" },
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
      if (!route || (route.method !== request.method && !(route.method === "GET" && request.method === "HEAD"))) return;
      const addr = await site.byDomain(host, deps.config.TRUST_PROXY ? request.headers.get("x-forwarded-proto") === "https" : request.url.startsWith("https:"));
      if (!addr) return;
      return dispatch(request, addr, route.handle);
    })
    .get("/status/:slug", async ({ request, params }) => site.view(request, await site.bySlug(params.slug), "html"), {
      params: Slug,
      detail: { ...PUBLIC, summary: "Public status page (HTML, works without JavaScript)" },
    })
    .get("/status/:slug/index.json", async ({ request, params }) => site.view(request, await site.bySlug(params.slug), "json"), {
      params: Slug,
      detail: { ...PUBLIC, summary: "The status page's data as JSON" },
    })
    .get("/status/:slug/feed.rss", async ({ request, params }) => site.view(request, await site.bySlug(params.slug), "rss"), {
      params: Slug,
      detail: { ...PUBLIC, summary: "Incidents as RSS 2.0" },
    })
    .get("/status/:slug/feed.atom", async ({ request, params }) => site.view(request, await site.bySlug(params.slug), "atom"), {
      params: Slug,
      detail: { ...PUBLIC, summary: "Incidents as Atom" },
    })
    .post("/status/:slug/login", async ({ request, params }) => site.login(request, await site.bySlug(params.slug)), {
      params: Slug,
      parse: "none",
      detail: { ...PUBLIC, summary: "Password form of a password-protected page; sets a signed access cookie" },
    })
    .post("/status/:slug/subscribe", async ({ request, params }) => site.subscribe(request, await site.bySlug(params.slug)), {
      params: Slug,
      parse: "none",
      detail: { ...PUBLIC, summary: "Subscribe form (email); sends a confirmation link (double opt-in)" },
    })
    .get("/status/:slug/confirm", async ({ request, params }) => site.confirm(request, await site.bySlug(params.slug)), {
      params: Slug,
      detail: { ...PUBLIC, summary: "Confirms an email subscription (signed link from the confirmation email)" },
    })
    .get("/badge/:id/status.svg", ({ request, params }) => badges.badge(request, params.id, "status"), {
      params: BadgeParams,
      detail: { ...PUBLIC, summary: "Current status badge of a monitor (mon_…) or status-page component (spc_…)" },
    })
    .get("/badge/:id/uptime.svg", ({ request, params }) => badges.badge(request, params.id, "uptime"), {
      params: BadgeParams,
      detail: { ...PUBLIC, summary: "Uptime badge; ?period=24h|7d|30d|90d (default 30d)" },
    })
    .get("/badge/:id/response-time.svg", ({ request, params }) => badges.badge(request, params.id, "response-time"), {
      params: BadgeParams,
      detail: { ...PUBLIC, summary: "Average response time over 24 hours" },
    });
}
