import { t } from "elysia";
import { Obj, Timestamp, DisplayName } from "../../schemas/common.ts";

export const Email = t.String({ format: "email", maxLength: 254 });
export const Password = t.String({ minLength: 10, maxLength: 200, description: "At least 10 characters" });

export const SignUpBody = Obj({
  email: Email,
  password: Password,
  name: DisplayName(120),
  org_name: t.Optional(DisplayName(120)),
  invitation_token: t.Optional(
    t.String({
      minLength: 1,
      maxLength: 200,
      description: "The token of an emailed invitation to this address: the account joins the inviting organisation (and gets none of its own); accepted also where sign-up is closed",
    }),
  ),
});

export const SignInBody = Obj({
  email: Email,
  password: t.String({ minLength: 1, maxLength: 200 }),
  totp_code: t.Optional(t.String({ pattern: "^[0-9 ]{6,8}$" })),
  recovery_code: t.Optional(t.String({ minLength: 1, maxLength: 40, description: "One of the ten recovery codes, in place of totp_code; each works once" })),
});

export const ResetRequestBody = Obj({ email: Email });
export const ResetConfirmBody = Obj({ token: t.String({ minLength: 10, maxLength: 200 }), password: Password });

export const SessionResponse = t.Object({
  user: t.Object({ id: t.String(), email: t.String(), name: t.String(), two_factor_enabled: t.Boolean() }),
  org_id: t.Union([t.String(), t.Null()]),
  csrf_token: t.String({ description: "Send as X-CSRF-Token on cookie-authenticated writes (also in the wp_csrf cookie)" }),
  expires_at: Timestamp,
});

export const Accepted = t.Object({ ok: t.Literal(true) });
