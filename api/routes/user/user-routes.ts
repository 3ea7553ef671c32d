import { Elysia, t } from "elysia";
import {
  deleteAccount,
  disableTotp,
  enableTotp,
  exportUserData,
  getProfile,
  listSessions,
  regenerateRecoveryCodes,
  revokeSession,
  setupTotp,
  updateProfile,
} from "../../../domain/accounts/user.ts";
import type { UserRow } from "../../../db/queries/users.ts";
import type { ApiDeps } from "../../context.ts";
import { authPlugin } from "../../middleware/auth.ts";
import { clearedCookies, isSecure } from "../auth/cookies.ts";
import { Email, Password } from "../auth/schemas.ts";
import { IdParams, Obj, Timestamp, DisplayName, PaginationQuery, paginated } from "../../schemas/common.ts";
import { pageOf } from "../../schemas/page-of.ts";

const UserView = t.Object({ id: t.String(), email: t.String(), name: t.String(), two_factor_enabled: t.Boolean(), created_at: Timestamp, updated_at: Timestamp });
const toUserView = (u: UserRow) => ({
  id: u.id,
  email: u.email,
  name: u.name,
  two_factor_enabled: u.totp_enabled,
  created_at: u.created_at.toISOString(),
  updated_at: u.updated_at.toISOString(),
});
const SessionView = t.Object({
  id: t.String(),
  current: t.Boolean(),
  ip: t.Union([t.String(), t.Null()]),
  user_agent: t.Union([t.String(), t.Null()]),
  created_at: Timestamp,
  last_seen_at: Timestamp,
  expires_at: Timestamp,
});
const TotpCode = t.String({ pattern: "^[0-9 ]{6,8}$", description: "A current code from the authenticator app" });
const RecoveryCode = t.String({ minLength: 1, maxLength: 40, description: "One of the recovery codes; case, spaces and hyphens do not matter" });
const Code = Obj({ code: TotpCode });
const RecoveryCodes = t.Array(t.String(), { minItems: 10, maxItems: 10, description: "Ten one-time recovery codes, shown only in this answer; each signs in once in place of a TOTP code" });

/** The signed-in user's own account: profile, sessions, 2FA, export and deletion. Sessions only. */
export const userRoutes = (deps: ApiDeps) =>
  new Elysia({ prefix: "/user", detail: { tags: ["user"] } })
    .use(authPlugin)
    .guard({ requires: "user" }, (app) =>
      app
        .get("", async ({ actor }) => toUserView(await getProfile(deps.sql, actor.userId)), { response: { 200: UserView }, detail: { summary: "Your profile" } })
        .patch(
          "",
          async ({ actor, body }) =>
            toUserView(await updateProfile(deps.sql, actor.userId, actor.identity.kind === "session" ? actor.identity.sessionId : null, body)),
          {
            body: Obj({
              name: t.Optional(DisplayName(120)),
              email: t.Optional(Email),
              password: t.Optional(Password),
              current_password: t.Optional(t.String({ maxLength: 200 })),
            }),
            response: { 200: UserView },
            detail: { summary: "Update your profile; email or password changes need current_password" },
          },
        )
        .get(
          "/sessions",
          async ({ actor, query }) => {
            const current = actor.identity.kind === "session" ? actor.identity.sessionId : "";
            const rows = await listSessions(deps.sql, actor.userId);
            return pageOf(
              rows.map((s) => ({
                id: s.id,
                current: s.id === current,
                ip: s.ip,
                user_agent: s.user_agent,
                created_at: s.created_at.toISOString(),
                last_seen_at: s.last_seen_at.toISOString(),
                expires_at: s.expires_at.toISOString(),
              })),
              query,
            );
          },
          { query: Obj(PaginationQuery), response: { 200: paginated(SessionView) }, detail: { summary: "Your live sessions" } },
        )
        .delete(
          "/sessions/:id",
          async ({ actor, params, set }) => {
            await revokeSession(deps.sql, actor.userId, params.id);
            set.status = 204;
          },
          { params: IdParams, detail: { summary: "Sign one session out" } },
        )
        .post("/2fa/setup", ({ actor }) => setupTotp(deps.sql, deps.box, actor.userId), {
          response: { 200: t.Object({ secret: t.String(), otpauth_url: t.String() }) },
          detail: { summary: "Start TOTP enrolment: returns the secret and an otpauth:// URI for a QR code" },
        })
        .post(
          "/2fa/enable",
          async ({ actor, body }) => {
            const { user, recoveryCodes } = await enableTotp(deps.sql, deps.box, actor.userId, body.code);
            return { ...toUserView(user), recovery_codes: recoveryCodes };
          },
          {
            body: Code,
            response: { 200: t.Composite([UserView, t.Object({ recovery_codes: RecoveryCodes })]) },
            detail: { summary: "Confirm a code from the authenticator and turn 2FA on; answers the ten recovery codes once" },
          },
        )
        .post(
          "/2fa/disable",
          async ({ actor, body }) => {
            await disableTotp(deps.sql, deps.box, actor.userId, body);
            return toUserView(await getProfile(deps.sql, actor.userId));
          },
          {
            body: Obj({ code: t.Optional(TotpCode), recovery_code: t.Optional(RecoveryCode) }),
            response: { 200: UserView },
            detail: { summary: "Turn 2FA off with a current code, or a recovery code when the authenticator is lost (exactly one of them)" },
          },
        )
        .post(
          "/2fa/recovery-codes",
          async ({ actor, body }) => ({ recovery_codes: await regenerateRecoveryCodes(deps.sql, deps.box, actor.userId, body) }),
          {
            body: Obj({ password: t.Optional(t.String({ minLength: 1, maxLength: 200 })), code: t.Optional(TotpCode) }),
            response: { 200: t.Object({ recovery_codes: RecoveryCodes }) },
            detail: { summary: "Replace the recovery codes (the old ones stop working) after your password or a current TOTP code (exactly one of them)" },
          },
        )
        .get("/export", ({ actor }) => exportUserData(deps.sql, actor.userId), {
          response: { 200: t.Record(t.String(), t.Unknown()) },
          detail: { summary: "JSON export of everything you own" },
        })
        .delete(
          "",
          async ({ actor, body, request, set }) => {
            const result = await deleteAccount(deps.sql, actor.userId, body.password);
            // The session went with the account: the browser drops its cookies too.
            set.headers["set-cookie"] = clearedCookies(isSecure(request, deps.config)) as never;
            return result;
          },
          {
            body: Obj({ password: t.String({ minLength: 1, maxLength: 200 }) }),
            response: { 200: t.Object({ deleted_organisations: t.Array(t.String()) }) },
            detail: { summary: "Delete your account (and clear the session cookies); organisations you solely own are deleted when no one else is in them, otherwise 409" },
          },
        ),
    );
