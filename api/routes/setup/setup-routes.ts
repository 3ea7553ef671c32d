import { Elysia, t } from "elysia";
import { setUpFirstOwner, setupNeeded } from "../../../domain/accounts/setup.ts";
import { createSession } from "../../../domain/accounts/sessions.ts";
import { DisplayName, Obj } from "../../schemas/common.ts";
import { signupOpen } from "../../config.ts";
import type { ApiDeps } from "../../context.ts";
import { requestMeta } from "../../context.ts";
import { authPlugin } from "../../middleware/auth.ts";
import { isSecure, sessionCookies } from "../auth/cookies.ts";
import { Email, Password, SessionResponse } from "../auth/schemas.ts";

const SetupStatus = t.Object({
  needed: t.Boolean({ description: "True while no organisation exists: the dashboard then shows its setup screen" }),
  signup_open: t.Boolean({ description: "Whether POST /auth/signup takes anyone (SIGNUP_OPEN); when false, only people with an invitation's token" }),
});
const SetupBody = Obj({ email: Email, password: Password, name: DisplayName(120), org_name: DisplayName(120) });

/** First run of a fresh installation: create the owner and the first organisation from the browser, once. */
export const setupRoutes = (deps: ApiDeps) =>
  new Elysia({ prefix: "/setup", detail: { tags: ["auth"] } })
    .use(authPlugin)
    .get("", async () => ({ needed: await setupNeeded(deps.sql), signup_open: signupOpen(deps.config) }), {
      response: { 200: SetupStatus },
      detail: { summary: "Whether this installation still needs its first owner (no organisation exists yet), and whether anyone may sign up", security: [] },
    })
    .post(
      "",
      async ({ body, request, set }) => {
        const { user, orgId } = await setUpFirstOwner(deps.sql, body);
        const { session, token } = await createSession(deps.sql, {
          userId: user.id,
          ip: requestMeta.get(request)?.ip ?? null,
          userAgent: request.headers.get("user-agent"),
          ttlHours: deps.config.SESSION_TTL_HOURS,
        });
        set.status = 201;
        set.headers["set-cookie"] = sessionCookies(token, session.csrf_token, session.expires_at, isSecure(request, deps.config)) as never;
        return {
          user: { id: user.id, email: user.email, name: user.name, two_factor_enabled: user.totp_enabled },
          org_id: orgId,
          csrf_token: session.csrf_token,
          expires_at: session.expires_at.toISOString(),
        };
      },
      {
        body: SetupBody,
        response: { 201: SessionResponse },
        detail: {
          summary: "Create the owner and the first organisation of a fresh installation, and sign them in",
          description:
            "Works only while no organisation exists; afterwards, and for every concurrent attempt but one, 409 CONFLICT with details.reason \"already_set_up\". Refused (403 cross_site) from another site's page; limited per IP like sign-up.",
          security: [],
          "x-errors": ["403", "409"],
        },
      },
    );
