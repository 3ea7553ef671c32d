import type { ApiDeps } from "../context.ts";
import { requestMeta } from "../context.ts";
import { AppError } from "../../core/errors.ts";
import { decideAccess, type AccessDecision } from "../../domain/status-pages/access.ts";
import { buildPublicPage, type PublicPage, themeOf } from "../../domain/status-pages/public-model.ts";
import { RenderCache } from "../../domain/status-pages/render-cache.ts";
import { renderAtom, renderRss } from "../../domain/status-pages/render-feed.ts";
import { renderConfirmForm, renderMessage, renderPasswordForm, renderStatusHtml } from "../../domain/status-pages/render-html.ts";
import { confirmByToken, lookUpConfirmation, subscribeEmail } from "../../domain/status-pages/subscribers.ts";
import { BUILT_IN_THEMES } from "../../domain/status-pages/themes.ts";
import { PAGE_COOKIE_PREFIX, PAGE_COOKIE_TTL_SECONDS, signPageCookie } from "../../domain/status-pages/tokens.ts";
import { customDomainsAllowed } from "../../billing/suspension.ts";
import { statusPageKey, throttled } from "../../domain/accounts/sign-in-throttle.ts";
import { isCrossSite } from "../edge/cross-site.ts";
import { findPageByDomain, findPageBySlug, type StatusPageRow } from "../../db/queries/status-pages.ts";
import { cookieReader, html, notFoundResponse, type Rendered, rendered, serveRendered } from "./respond.ts";

export type PublicView = "html" | "json" | "rss" | "atom";

/** Where a page was reached: /status/<slug>/… or the root of its verified custom domain. */
export interface PageAddress {
  page: StatusPageRow;
  /** Path prefix of the page's URLs: "/status/<slug>" or "". */
  base: string;
  /** Absolute URL of the page (feeds, links). */
  url: string;
}

const LOGIN_ATTEMPTS_PER_MINUTE = 10;
const WRONG_PAGE_PASSWORD = new Error("wrong status page password");
const SUBSCRIBE_PER_MINUTE = 10;

/** The public status-page surfaces, with their render cache. Routes and the custom-domain hook call these. */
export function createStatusSite(deps: ApiDeps) {
  const cache = new RenderCache();
  let stopListening: (() => Promise<void>) | null = null;
  const listening = cache.listen(deps.sql, deps.log).then(
    (stop) => (stopListening = stop),
    (err) => deps.log.warn({ op: "status-pages.cache.listen", err }, "status-page cache falls back to a short TTL: LISTEN failed"),
  );

  const ipOf = (request: Request) => requestMeta.get(request)?.ip ?? "unknown";
  const access = (request: Request, page: StatusPageRow): Promise<AccessDecision> =>
    decideAccess(deps.sql, deps.box, page, { ip: ipOf(request), cookies: cookieReader(request) });

  async function bySlug(slug: string): Promise<PageAddress | null> {
    const page = await cache.lookup(`slug:${slug}`, () => findPageBySlug(deps.sql, slug));
    return page ? { page, base: `/status/${page.slug}`, url: `${deps.publicBaseUrl}/status/${page.slug}` } : null;
  }

  /** A verified custom domain answers only while the organisation's plan includes custom domains. */
  async function byDomain(host: string, secure: boolean): Promise<PageAddress | null> {
    const page = await cache.lookup(`domain:${host}`, async () => {
      const row = await findPageByDomain(deps.sql, host);
      return row && (await customDomainsAllowed(deps.sql, row.org_id)) ? row : undefined;
    });
    return page ? { page, base: "", url: `${secure ? "https" : "http"}://${host}` } : null;
  }

  const model = (page: StatusPageRow) => cache.get<PublicPage>(`model:${page.id}`, page.org_id, () => buildPublicPage(deps.sql, page));

  function renderView(addr: PageAddress, view: PublicView): Promise<Rendered> {
    const { page } = addr;
    return cache.get(`${view}:${page.id}:${addr.base}:${addr.url}`, page.org_id, async () => {
      const m = await model(page);
      if (view === "json") return rendered(JSON.stringify(m), "application/json; charset=utf-8");
      if (view === "rss") return rendered(renderRss(m, addr.url), "application/rss+xml; charset=utf-8");
      if (view === "atom") return rendered(renderAtom(m, addr.url), "application/atom+xml; charset=utf-8");
      return rendered(renderStatusHtml(m, await themeOf(deps.sql, page), addr.base), "text/html; charset=utf-8");
    });
  }

  /** A page suspended over the plan's quota: a notice instead of its content, never cached. */
  async function suspendedNotice(addr: PageAddress, v: PublicView): Promise<Response> {
    const message = "This status page is suspended because its organisation's plan no longer includes it. It returns as soon as the plan covers it again.";
    if (v !== "html") return new Response(JSON.stringify({ error: message, code: "STATUS_PAGE_SUSPENDED" }), { status: 503, headers: { "content-type": "application/json", "cache-control": "no-store" } });
    return html(503, renderMessage(`${addr.page.name} is unavailable`, message, await themeOf(deps.sql, addr.page)), { "cache-control": "no-store" });
  }

  async function view(request: Request, addr: PageAddress | null, v: PublicView): Promise<Response> {
    if (!addr) return notFoundResponse(request);
    // Whoever could see the page sees the suspension notice; everyone else still gets 404.
    const decision = await access(request, addr.page.suspended ? { ...addr.page, suspended: false } : addr.page);
    if (decision === "deny") return notFoundResponse(request);
    if (addr.page.suspended) return decision === "allow" ? suspendedNotice(addr, v) : notFoundResponse(request);
    if (decision === "password") {
      if (v !== "html") return new Response(JSON.stringify({ error: `This status page needs its password: sign in at ${addr.url}`, code: "UNAUTHENTICATED" }), { status: 401, headers: { "content-type": "application/json", "cache-control": "no-store" } });
      return html(401, renderPasswordForm(addr.page.name, await themeOf(deps.sql, addr.page), addr.base, false));
    }
    const shared = addr.page.access_mode === "public" && addr.page.ip_allowlist.length === 0;
    return serveRendered(request, await renderView(addr, v), shared, 0);
  }

  async function form(request: Request): Promise<URLSearchParams> {
    const text = await request.text().catch(() => "");
    return new URLSearchParams(text);
  }

  async function login(request: Request, addr: PageAddress | null): Promise<Response> {
    if (!addr) return notFoundResponse(request);
    const { page } = addr;
    const decision = await access(request, page);
    if (decision === "deny" || page.access_mode !== "password" || !page.password_hash) return notFoundResponse(request);
    const theme = await themeOf(deps.sql, page);
    const limit = await deps.limiter.take(`sp-login:${page.id}:${ipOf(request)}`, LOGIN_ATTEMPTS_PER_MINUTE);
    if (!limit.allowed) return html(429, renderMessage("Too many attempts", `Try again in ${limit.resetSeconds} seconds.`, theme), { "retry-after": String(limit.resetSeconds) });
    // Login CSRF: another site's page must not sign a visitor in (docs/security.md).
    if (isCrossSite(request, deps.config)) return html(403, renderMessage("Refused", "This sign-in came from another site.", theme));
    const password = (await form(request)).get("password") ?? "";
    const hash = page.password_hash;
    // Per page, whatever the address: the per-IP limit above alone lets a distributed attacker guess on.
    const verdict = await throttled(deps.sql, statusPageKey(page.id), async () => {
      if (!password || !(await Bun.password.verify(password, hash))) throw WRONG_PAGE_PASSWORD;
    }).then(
      () => "ok" as const,
      (err: unknown) => {
        if (err === WRONG_PAGE_PASSWORD) return "wrong" as const;
        if (err instanceof AppError && err.status === 429) return Number(err.details?.retryAfterSeconds ?? 1);
        throw err;
      },
    );
    if (typeof verdict === "number") return html(429, renderMessage("Too many attempts", `Try again in ${verdict} seconds.`, theme), { "retry-after": String(verdict) });
    if (verdict === "wrong") return html(401, renderPasswordForm(page.name, theme, addr.base, true));
    const exp = Math.floor(Date.now() / 1000) + PAGE_COOKIE_TTL_SECONDS;
    const secure = addr.url.startsWith("https:") ? "; Secure" : "";
    const cookie = `${PAGE_COOKIE_PREFIX}${page.id}=${signPageCookie(deps.box, page.id, page.password_hash, exp)}; Path=/; Max-Age=${PAGE_COOKIE_TTL_SECONDS}; HttpOnly; SameSite=Lax${secure}`;
    return new Response(null, { status: 303, headers: { location: addr.base || "/", "set-cookie": cookie, "cache-control": "no-store" } });
  }

  const mailCtx = () => ({ sql: deps.sql, box: deps.box, baseUrl: deps.publicBaseUrl, log: deps.log });

  async function subscribe(request: Request, addr: PageAddress | null): Promise<Response> {
    if (!addr) return notFoundResponse(request);
    if ((await access(request, addr.page)) !== "allow") return notFoundResponse(request);
    const theme = await themeOf(deps.sql, addr.page);
    const back = { href: addr.base || "/", text: `Back to ${addr.page.name}` };
    const limit = await deps.limiter.take(`sp-subscribe:${ipOf(request)}`, SUBSCRIBE_PER_MINUTE);
    if (!limit.allowed) return html(429, renderMessage("Too many requests", `Try again in ${limit.resetSeconds} seconds.`, theme, back));
    try {
      await subscribeEmail(mailCtx(), addr.page, (await form(request)).get("email") ?? "");
    } catch (err) {
      if (err instanceof AppError && err.status === 400) return html(400, renderMessage("Not subscribed", "That does not look like an email address.", theme, back));
      throw err;
    }
    // The same answer whether or not the address was already subscribed.
    return html(200, renderMessage("Check your inbox", "We sent a link to confirm your subscription. Updates start once you follow it.", theme, back));
  }

  /**
   * The link in the confirmation email. Mail scanners prefetch links, so GET (and HEAD) only asks;
   * the page's button POSTs to the same address and that confirms (double opt-in stays a person's act).
   */
  async function confirm(request: Request, addr: PageAddress | null): Promise<Response> {
    const theme = addr ? await themeOf(deps.sql, addr.page) : BUILT_IN_THEMES.light;
    const url = new URL(request.url);
    const token = url.searchParams.get("token") ?? "";
    const act = request.method === "POST";
    const found = act ? await confirmByToken(deps.sql, deps.box, token) : await lookUpConfirmation(deps.sql, deps.box, token);
    if (!found || (addr && found.page.id !== addr.page.id)) return html(400, renderMessage("Link not valid", "This confirmation link is invalid or has expired. Subscribe again from the status page.", theme));
    if (!act && !found.subscriber.confirmed_at) {
      const form = { action: `${url.pathname}?token=${encodeURIComponent(token)}`, button: "Confirm subscription" };
      return html(200, renderConfirmForm("Confirm your subscription", `Receive incident updates from ${found.page.name} by email?`, theme, form));
    }
    return html(200, renderMessage("Subscribed", `You will receive incident updates from ${found.page.name}.`, theme, addr ? { href: addr.base || "/", text: `Back to ${found.page.name}` } : undefined));
  }

  return {
    cache,
    bySlug,
    byDomain,
    access,
    model,
    view,
    login,
    subscribe,
    confirm,
    async stop() {
      await listening;
      await stopListening?.();
    },
  };
}

export type StatusSite = ReturnType<typeof createStatusSite>;
