import type { Actor } from "../access/actor.ts";
import { lacking } from "../access/identity.ts";
import type { SecretBox } from "../../core/crypto/secrets.ts";
import { SECRET_PLACEHOLDER } from "../../core/crypto/sealed-fields.ts";
import { conflict, notFound, permissionDenied, validationError, type ValidationIssue } from "../../core/errors.ts";
import { newId } from "../../core/ids.ts";
import { isUniqueViolation, type Sql, withTx } from "../../db/client.ts";
import { findRole } from "../../db/queries/roles.ts";
import { deleteSsoConfig, findSsoConfig, findSsoConfigsByDomain, type SsoConfigRow, upsertSsoConfig } from "../../db/queries/sso.ts";
import { discoverProvider, issuerProblem, providerFailure, type SsoNetwork } from "./sso-provider.ts";

interface Ctx {
  sql: Sql;
  actor: Actor;
}

export interface SsoConfigInput {
  slug: string;
  issuer: string;
  client_id: string;
  /** Omitted, or the placeholder the API shows: keep the stored secret. */
  client_secret?: string;
  allowed_domains: string[];
  default_role_id: string;
  require_sso: boolean;
}

export async function getSsoConfig({ sql, actor }: Ctx): Promise<SsoConfigRow> {
  const row = await findSsoConfig(sql, actor.orgId);
  if (!row) throw notFound("SSO configuration");
  return row;
}

/** The issuer as the provider names itself: no trailing slash unless it is the whole path. */
const normaliseIssuer = (issuer: string) => issuer.trim().replace(/(?<=[^/])\/+$/, "");

/**
 * Creates or replaces the organisation's OIDC configuration. The client secret is sealed with
 * SECRET_KEY; the role for provisioned members must exist here, must not be owner, and must not
 * exceed the caller's own permissions; an email domain belongs to at most one organisation.
 */
export async function saveSsoConfig({ sql, actor }: Ctx, box: SecretBox, allowHttpIssuer: boolean, input: SsoConfigInput): Promise<SsoConfigRow> {
  const issues: ValidationIssue[] = [];
  const issuer = normaliseIssuer(input.issuer);
  const problem = issuerProblem(issuer, allowHttpIssuer);
  if (problem) issues.push({ path: "body.issuer", message: `The issuer ${problem}` });
  const existing = await findSsoConfig(sql, actor.orgId);
  const secret = input.client_secret === undefined || input.client_secret === SECRET_PLACEHOLDER ? undefined : input.client_secret;
  if (secret === undefined && !existing) issues.push({ path: "body.client_secret", message: "A client secret is required when single sign-on is first configured" });
  const role = await findRole(sql, actor.orgId, input.default_role_id);
  if (!role) issues.push({ path: "body.default_role_id", message: "Unknown role: not one of this organisation's" });
  else if (role.id === "owner") issues.push({ path: "body.default_role_id", message: "Provisioned members cannot be made owners; choose another role" });
  if (issues.length > 0) throw validationError(issues);
  const excess = lacking(actor.identity, role!.permissions);
  if (excess.length > 0) throw permissionDenied("Provisioned members cannot get permissions you do not hold", { permissions: excess });
  const domains = [...new Set(input.allowed_domains.map((d) => d.trim().toLowerCase()))].sort();
  try {
    return await withTx(sql, async (tx) => {
      for (const domain of domains) {
        const others = (await findSsoConfigsByDomain(tx, domain)).filter((c) => c.org_id !== actor.orgId);
        if (others.length > 0) throw conflict(`Another organisation signs in ${domain} with single sign-on`, { domain });
      }
      return upsertSsoConfig(tx, {
        id: existing?.id ?? newId("sso"),
        orgId: actor.orgId,
        slug: input.slug.toLowerCase(),
        issuer,
        clientId: input.client_id,
        clientSecretEnc: secret === undefined ? existing!.client_secret_enc : box.encrypt(secret),
        allowedDomains: domains,
        defaultRoleId: role!.id,
        requireSso: input.require_sso,
      });
    });
  } catch (err) {
    if (isUniqueViolation(err, "org_sso_configs_slug_key")) throw conflict("Another organisation uses this SSO name; choose another", { slug: input.slug });
    throw err;
  }
}

/** Turns single sign-on off: the configuration and the links between provider subjects and users go; accounts stay. */
export async function removeSsoConfig({ sql, actor }: Ctx): Promise<void> {
  if (!(await withTx(sql, (tx) => deleteSsoConfig(tx, actor.orgId)))) throw notFound("SSO configuration");
}

export type ConnectionReport =
  | { ok: true; issuer: string; authorization_endpoint: string; token_endpoint: string; userinfo_endpoint: string | null; pkce_s256: boolean }
  | { ok: false; error: string };

/** Fetches the issuer's discovery document as sign-in will (same network guard, same issuer rules) and says what it found. */
export async function testSsoConnection(net: SsoNetwork, input: { issuer: string }): Promise<ConnectionReport> {
  const issuer = normaliseIssuer(input.issuer);
  const problem = issuerProblem(issuer, net.allowHttpIssuer);
  if (problem) throw validationError([{ path: "body.issuer", message: `The issuer ${problem}` }]);
  try {
    const meta = (await discoverProvider(net, { issuer, clientId: "watchpost-connection-test", clientSecret: "unused" })).serverMetadata();
    if (!meta.authorization_endpoint || !meta.token_endpoint) return { ok: false, error: "The discovery document names no authorization or token endpoint" };
    const methods = meta.code_challenge_methods_supported;
    return {
      ok: true,
      issuer: meta.issuer,
      authorization_endpoint: meta.authorization_endpoint,
      token_endpoint: meta.token_endpoint,
      userinfo_endpoint: meta.userinfo_endpoint ?? null,
      pkce_s256: methods === undefined || methods.includes("S256"),
    };
  } catch (err) {
    return { ok: false, error: `Discovery failed: ${providerFailure(err)}` };
  }
}
