import { Elysia } from "elysia";
import { confirmPasswordReset, requestPasswordReset, signUp, verifySignIn } from "../../../domain/accounts/auth.ts";
import { createSession } from "../../../domain/accounts/sessions.ts";
import { listUserOrgs } from "../../../db/queries/orgs.ts";
import { deleteUserSession } from "../../../db/queries/sessions.ts";
import { signupOpen } from "../../config.ts";
import type { ApiDeps } from "../../context.ts";
import { requestMeta } from "../../context.ts";
import { authPlugin } from "../../middleware/auth.ts";
import { ssoSignInRoutes } from "./sso-routes.ts";
import { clearedCookies, isSecure, sessionCookies } from "./cookies.ts";
import { Accepted, ResetConfirmBody, ResetRequestBody, SessionResponse, SignInBody, SignUpBody } from "./schemas.ts";
import type { UserRow } from "../../../db/queries/users.ts";
import type { SessionRow } from "../../../db/queries/sessions.ts";

const sessionView = (user: UserRow, orgId: string | null, session: SessionRow) => ({
  user: { id: user.id, email: user.email, name: user.name, two_factor_enabled: user.totp_enabled },
  org_id: orgId,
  csrf_token: session.csrf_token,
  expires_at: session.expires_at.toISOString(),
});

/** Sign-up, sign-in, sign-out and password reset. Session cookies: HttpOnly wp_session plus a readable wp_csrf. */
export const authRoutes = (deps: ApiDeps) =>
  new Elysia({ prefix: "/auth", detail: { tags: ["auth"] } })
    .use(authPlugin)
    .use(ssoSignInRoutes(deps))
    .post(
      "/signup",
      async ({ body, request, set }) => {
        const { user, orgId } = await signUp(deps.sql, body, { open: signupOpen(deps.config) });
        const { session, token } = await createSession(deps.sql, {
          userId: user.id,
          ip: requestMeta.get(request)?.ip ?? null,
          userAgent: request.headers.get("user-agent"),
          ttlHours: deps.config.SESSION_TTL_HOURS,
        });
        set.status = 201;
        set.headers["set-cookie"] = sessionCookies(token, session.csrf_token, session.expires_at, isSecure(request, deps.config)) as never;
        return sessionView(user, orgId, session);
      },
      {
        body: SignUpBody,
        response: { 201: SessionResponse },
        detail: {
          summary: "Create an account and its first organisation, or with an invitation's token join the inviting one",
          security: [],
          "x-errors": ["403", "404", "409"],
        },
      },
    )
    .post(
      "/signin",
      async ({ body, request, set }) => {
        const user = await verifySignIn(deps.sql, deps.box, body);
        const { session, token } = await createSession(deps.sql, {
          userId: user.id,
          ip: requestMeta.get(request)?.ip ?? null,
          userAgent: request.headers.get("user-agent"),
          ttlHours: deps.config.SESSION_TTL_HOURS,
        });
        const [org] = await listUserOrgs(deps.sql, user.id);
        set.headers["set-cookie"] = sessionCookies(token, session.csrf_token, session.expires_at, isSecure(request, deps.config)) as never;
        return sessionView(user, org?.id ?? null, session);
      },
      { body: SignInBody, response: { 200: SessionResponse }, detail: {
          summary: "Sign in with email, password and (if enabled) a TOTP code or a recovery code",
          description:
            "Each account is throttled apart from the per-IP limit: after five failed attempts, 429 with Retry-After (15 s, doubling per further failure, at most 5 min). Refused (403 cross_site) from another site's page.",
          security: [],
          "x-errors": ["401", "403"],
        },
      },
    )
    .post(
      "/signout",
      async ({ actor, request, set }) => {
        if (actor.identity.kind === "session") await deleteUserSession(deps.sql, actor.userId, actor.identity.sessionId);
        set.headers["set-cookie"] = clearedCookies(isSecure(request, deps.config)) as never;
        return { ok: true as const };
      },
      { requires: "user", response: { 200: Accepted }, detail: { summary: "End the current session" } },
    )
    .post(
      "/password-reset/request",
      async ({ body, set }) => {
        await requestPasswordReset(deps.sql, deps.box, deps.publicBaseUrl, body.email);
        set.status = 202;
        return { ok: true as const };
      },
      { body: ResetRequestBody, response: { 202: Accepted }, detail: { summary: "Email a one-hour reset token (same answer whether the account exists or not)", security: [] } },
    )
    .post(
      "/password-reset/confirm",
      async ({ body }) => {
        await confirmPasswordReset(deps.sql, body);
        return { ok: true as const };
      },
      { body: ResetConfirmBody, response: { 200: Accepted }, detail: { summary: "Set a new password with a reset token; ends every session", security: [] } },
    );
