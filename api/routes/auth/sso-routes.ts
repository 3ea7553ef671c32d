import { Elysia, t } from "elysia";
import { AppError } from "../../../core/errors.ts";
import { createSession } from "../../../domain/accounts/sessions.ts";
import { completeSsoSignIn, SsoSignInError, startSsoLink, startSsoSignIn } from "../../../domain/accounts/sso-sign-in.ts";
import { permissionDenied } from "../../../core/errors.ts";
import { authPlugin } from "../../middleware/auth.ts";
import type { ApiDeps } from "../../context.ts";
import { requestMeta } from "../../context.ts";
import { Obj } from "../../schemas/common.ts";
import { isSecure, sessionCookies } from "./cookies.ts";
import { Email } from "./schemas.ts";
import { ssoCallbackUrl, ssoNetworkOf } from "./sso-network.ts";

/** The HttpOnly cookie carrying the sealed state, nonce and PKCE verifier from start to callback. */
const FLOW_COOKIE = "wp_sso";
const FLOW_PATH = "/api/v1/auth/sso";

const flowCookie = (value: string, secure: boolean, maxAge: number) => `${FLOW_COOKIE}=${value}; HttpOnly; Path=${FLOW_PATH}; SameSite=Lax; Max-Age=${maxAge}${secure ? "; Secure" : ""}`;

function readFlowCookie(header: string | null): string | undefined {
  for (const part of header?.split(";") ?? []) {
    const [name, ...rest] = part.trim().split("=");
    if (name === FLOW_COOKIE) return rest.join("=");
  }
  return undefined;
}

const StartBody = Obj({
  email: t.Optional(Email),
  org_slug: t.Optional(t.String({ pattern: "^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$", maxLength: 63, description: "The organisation's SSO name" })),
});

const StartResponse = t.Object({
  redirect_url: t.String({ description: "Send the browser here (the provider's authorization endpoint)" }),
  org_slug: t.String(),
});

/** Single sign-on with OpenID Connect: authorization-code flow with PKCE, state and nonce (docs/sso.md). */
export const ssoSignInRoutes = (deps: ApiDeps) => {
  const net = ssoNetworkOf(deps);
  return new Elysia({ prefix: "/sso" })
    .post(
      "/start",
      async ({ body, request, set }) => {
        const started = await startSsoSignIn(deps.sql, deps.box, net, { ...body, redirectUri: ssoCallbackUrl(deps) });
        set.headers["set-cookie"] = flowCookie(started.flow, isSecure(request, deps.config), 600);
        return { redirect_url: started.redirectUrl, org_slug: started.orgSlug };
      },
      {
        body: StartBody,
        response: { 200: StartResponse },
        detail: {
          summary: "Start signing in with single sign-on, found by email domain or organisation slug",
          description:
            "Send exactly one of email or org_slug. Answers the provider's authorization URL and sets the short-lived HttpOnly wp_sso cookie the callback checks. 404 when no organisation uses SSO for that domain or slug; 503 when its provider cannot be reached. Refused (403 cross_site) from another site's page.",
          security: [],
          "x-errors": ["403", "404", "503"],
        },
      },
    )
    .use(authPlugin)
    .post(
      "/link",
      async ({ actor, request, set }) => {
        const identity = actor.identity;
        if (identity.kind !== "session" || identity.orgScope) {
          throw permissionDenied("Link single sign-on from a session signed in with your password", { reason: "password_session_required" });
        }
        const started = await startSsoLink(deps.sql, deps.box, net, { userId: actor.userId, orgId: actor.orgId, redirectUri: ssoCallbackUrl(deps) });
        set.headers["set-cookie"] = flowCookie(started.flow, isSecure(request, deps.config), 600);
        return { redirect_url: started.redirectUrl, org_slug: started.orgSlug };
      },
      {
        requires: "member",
        response: { 200: StartResponse },
        detail: {
          summary: "Link your account to the organisation's single sign-on: start the provider's sign-in",
          description:
            "From a session signed in with your password (403 password_session_required otherwise), for the organisation it acts in (X-Org-Id). Answers the provider's authorization URL; after the provider's sign-in the callback links its subject to you and redirects to /account?sso=linked (no new session). An existing account is never signed in as by its email alone: this is how it gets single sign-on. 404 when the organisation has no single sign-on.",
          "x-errors": ["403", "404", "503"],
        },
      },
    )
    .get(
      "/callback",
      async ({ request, set }) => {
        const secure = isSecure(request, deps.config);
        const callbackUrl = new URL(ssoCallbackUrl(deps));
        callbackUrl.search = new URL(request.url).search;
        set.status = 303;
        try {
          const meta = requestMeta.get(request);
          const signedIn = await completeSsoSignIn(deps.sql, deps.box, net, { flow: readFlowCookie(request.headers.get("cookie")), callbackUrl, ip: meta?.ip ?? null });
          if (signedIn.linked) {
            // The password session that started the link stays; the next SSO sign-in signs in as this account.
            set.headers.location = "/account?sso=linked";
            set.headers["set-cookie"] = flowCookie("", secure, 0);
            return "";
          }
          const { session, token } = await createSession(deps.sql, {
            userId: signedIn.user.id,
            ip: meta?.ip ?? null,
            userAgent: request.headers.get("user-agent"),
            ttlHours: deps.config.SESSION_TTL_HOURS,
            orgScope: signedIn.orgId,
          });
          set.headers.location = `/sso/complete?org=${encodeURIComponent(signedIn.orgId)}`;
          set.headers["set-cookie"] = [...sessionCookies(token, session.csrf_token, session.expires_at, secure), flowCookie("", secure, 0)] as never;
        } catch (err) {
          if (!(err instanceof SsoSignInError) && !(err instanceof AppError)) throw err;
          const reason = err instanceof SsoSignInError ? err.reason : "provider_error";
          deps.log.info({ op: "sso.callback", reason, err: err.message }, "SSO sign-in refused");
          set.headers.location = `/signin?sso_error=${reason}`;
          set.headers["set-cookie"] = flowCookie("", secure, 0);
        }
        return "";
      },
      {
        query: t.Object(
          {
            code: t.Optional(t.String({ maxLength: 4096 })),
            state: t.Optional(t.String({ maxLength: 1024 })),
            error: t.Optional(t.String({ maxLength: 512 })),
          },
          { additionalProperties: true },
        ),
        response: { 303: t.String({ description: "Empty; see Location" }) },
        detail: {
          summary: "Where the identity provider sends the browser back: completes the sign-in and redirects to the dashboard",
          description:
            "303 to /sso/complete?org=<id> with the session cookies (as POST /auth/signin sets them) on success: the session acts in that organisation only. 303 to /signin?sso_error=<reason> otherwise (flow_expired, not_configured, provider_error, email_missing, domain_not_allowed, link_required, identity_in_use, members_quota). A first sign-in provisions a new user with the organisation's default role; an existing account with the same email is refused (link_required) until it links itself (POST /auth/sso/link). A link flow ends with 303 to /account?sso=linked. Every sign-in is in the audit log as auth.sso_sign_in, every link as auth.sso_link. Parameters the provider adds to the redirect (iss, session_state, scope, …) are ignored, not refused.",
          security: [],
          "x-ignores-unknown-query": true,
        },
      },
    );
};
