import { t } from "elysia";
import { SECRET_PLACEHOLDER } from "../../../core/crypto/sealed-fields.ts";
import type { SsoConfigRow } from "../../../db/queries/sso.ts";
import { Obj, Timestamp } from "../../schemas/common.ts";

const Slug = t.String({ pattern: "^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$", minLength: 1, maxLength: 63, description: "Lower-case letters, digits and hyphens; what members type on the sign-in page" });
const Domain = t.String({ pattern: "^([a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?\\.)+[a-zA-Z]{2,63}$", maxLength: 253 });

export const SsoConfigBody = Obj({
  slug: Slug,
  issuer: t.String({ minLength: 1, maxLength: 500, description: "The provider's issuer URL (https; http only on loopback or with SSO_ALLOW_HTTP_ISSUER)" }),
  client_id: t.String({ minLength: 1, maxLength: 255 }),
  client_secret: t.Optional(t.String({ minLength: 1, maxLength: 500, description: `Required the first time; omit it or send "${SECRET_PLACEHOLDER}" to keep the stored one` })),
  allowed_domains: t.Array(Domain, { maxItems: 50, description: "Email domains that may sign in and are offered SSO by email on the sign-in page; empty: any address the provider vouches for (then members sign in by slug)" }),
  default_role_id: t.String({ minLength: 1, maxLength: 64, description: "Role given to members provisioned at their first SSO sign-in; not owner" }),
  require_sso: t.Boolean({ description: "Refuse password sign-in for members (owners keep it as break-glass)" }),
});

export const SsoConfigView = t.Object({
  slug: t.String(),
  issuer: t.String(),
  client_id: t.String(),
  client_secret: t.String({ description: "Always the placeholder: the secret is encrypted at rest and never returned" }),
  allowed_domains: t.Array(t.String()),
  default_role_id: t.String(),
  require_sso: t.Boolean(),
  redirect_uri: t.String({ description: "Register this callback URL with the provider" }),
  created_at: Timestamp,
  updated_at: Timestamp,
});

export const toSsoConfigView = (c: SsoConfigRow, redirectUri: string) => ({
  slug: c.slug,
  issuer: c.issuer,
  client_id: c.client_id,
  client_secret: SECRET_PLACEHOLDER,
  allowed_domains: c.allowed_domains,
  default_role_id: c.default_role_id,
  require_sso: c.require_sso,
  redirect_uri: redirectUri,
  created_at: c.created_at.toISOString(),
  updated_at: c.updated_at.toISOString(),
});

export const SsoTestBody = Obj({ issuer: SsoConfigBody.properties.issuer });

export const SsoTestReport = t.Object({
  ok: t.Boolean(),
  error: t.Optional(t.String({ description: "Why discovery failed (ok false)" })),
  issuer: t.Optional(t.String()),
  authorization_endpoint: t.Optional(t.String()),
  token_endpoint: t.Optional(t.String()),
  userinfo_endpoint: t.Optional(t.Union([t.String(), t.Null()])),
  pkce_s256: t.Optional(t.Boolean({ description: "The provider supports PKCE with S256 (or does not say)" })),
});
