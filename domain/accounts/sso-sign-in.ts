import * as oidc from "openid-client";
import { assertQuota } from "../../billing/entitlements.ts";
import type { SecretBox } from "../../core/crypto/secrets.ts";
import { AppError, notFound, validationError } from "../../core/errors.ts";
import { newId, randomToken } from "../../core/ids.ts";
import { type Sql, withTx } from "../../db/client.ts";
import { insertAudit } from "../../db/queries/audit-log.ts";
import { countUserMemberships, findMember, insertMembership } from "../../db/queries/members.ts";
import { findSsoConfig, findSsoConfigBySlug, findSsoConfigsByDomain, findSsoIdentityUser, insertSsoIdentity, type SsoConfigRow, ssoRequiredFor } from "../../db/queries/sso.ts";
import { findUserByEmail, findUserById, insertUser, markEmailVerified, type UserRow } from "../../db/queries/users.ts";
import { hashPassword } from "./passwords.ts";
import { discoverProvider, providerFailure, type SsoNetwork } from "./sso-provider.ts";

/** How long a started sign-in may take at the provider before the callback refuses it. */
const FLOW_TTL_MS = 10 * 60_000;

/** Why an SSO sign-in failed; the callback sends the browser back to the sign-in page with it. */
export type SsoFailureReason =
  | "flow_expired"
  | "not_configured"
  | "provider_error"
  | "email_missing"
  | "email_unverified"
  | "domain_not_allowed"
  | "account_exists"
  | "members_quota";

export class SsoSignInError extends Error {
  constructor(
    readonly reason: SsoFailureReason,
    message: string,
  ) {
    super(message);
  }
}

/** What the encrypted flow cookie holds between start and callback (it binds the callback to this browser). */
interface Flow {
  org: string;
  config: string;
  state: string;
  nonce: string;
  verifier: string;
  exp: number;
}

const emailDomain = (email: string) => email.slice(email.lastIndexOf("@") + 1).toLowerCase();

async function configFor(sql: Sql, input: { email?: string; org_slug?: string }): Promise<SsoConfigRow> {
  if ((input.email === undefined) === (input.org_slug === undefined)) {
    throw validationError([{ path: "body", message: "Give exactly one of email or org_slug" }], "Give exactly one of email or org_slug");
  }
  if (input.org_slug !== undefined) {
    const config = await findSsoConfigBySlug(sql, input.org_slug);
    if (!config) throw notFound("Organisation with single sign-on");
    return config;
  }
  const domain = emailDomain(input.email!);
  const configs = await findSsoConfigsByDomain(sql, domain);
  if (configs.length === 0) throw new AppError(404, "NOT_FOUND", `No organisation signs in ${domain} addresses with single sign-on`, { reason: "no_sso_for_domain" });
  return configs[0]!;
}

/**
 * First half of the authorization-code flow with PKCE: finds the organisation (by its SSO name or
 * the email's domain), discovers its provider and builds the authorization URL. The state, nonce
 * and code verifier go into `flow`, a value sealed with SECRET_KEY for an HttpOnly cookie.
 */
export async function startSsoSignIn(
  sql: Sql,
  box: SecretBox,
  net: SsoNetwork,
  input: { email?: string; org_slug?: string; redirectUri: string },
): Promise<{ redirectUrl: string; flow: string; orgSlug: string }> {
  const config = await configFor(sql, input);
  let provider: oidc.Configuration;
  try {
    provider = await discoverProvider(net, { issuer: config.issuer, clientId: config.client_id, clientSecret: box.decrypt(config.client_secret_enc) });
  } catch (err) {
    throw new AppError(503, "SERVICE_UNAVAILABLE", `The organisation's identity provider could not be reached: ${providerFailure(err)}`, { reason: "provider_unreachable" });
  }
  const flow: Flow = { org: config.org_id, config: config.id, state: oidc.randomState(), nonce: oidc.randomNonce(), verifier: oidc.randomPKCECodeVerifier(), exp: Date.now() + FLOW_TTL_MS };
  const url = oidc.buildAuthorizationUrl(provider, {
    redirect_uri: input.redirectUri,
    scope: "openid email profile",
    response_type: "code",
    code_challenge: await oidc.calculatePKCECodeChallenge(flow.verifier),
    code_challenge_method: "S256",
    state: flow.state,
    nonce: flow.nonce,
    ...(input.email ? { login_hint: input.email } : {}),
  });
  return { redirectUrl: url.href, flow: box.encrypt(JSON.stringify(flow)), orgSlug: config.slug };
}

function openFlow(box: SecretBox, sealed: string | undefined): Flow {
  try {
    const flow = JSON.parse(box.decrypt(sealed ?? "")) as Flow;
    if (typeof flow.exp === "number" && flow.exp > Date.now()) return flow;
  } catch {
    // not ours, tampered with, or from before a key rotation: the same answer as expired
  }
  throw new SsoSignInError("flow_expired", "The sign-in took too long or started in another browser; start again");
}

interface Claims {
  subject: string;
  email: string;
  emailVerified: boolean;
  name: string;
}

export interface SsoSignIn {
  user: UserRow;
  orgId: string;
  provisioned: boolean;
}

/**
 * Second half: exchanges the code (state, nonce and PKCE checked by openid-client), then finds the
 * user by the provider's subject, links an existing member with the same verified email, or
 * provisions a new user with the configured role (just in time). Writes an audit entry.
 */
export async function completeSsoSignIn(
  sql: Sql,
  box: SecretBox,
  net: SsoNetwork,
  input: { flow: string | undefined; callbackUrl: URL; ip: string | null },
): Promise<SsoSignIn> {
  const flow = openFlow(box, input.flow);
  const config = await findSsoConfig(sql, flow.org);
  if (!config || config.id !== flow.config) throw new SsoSignInError("not_configured", "Single sign-on was turned off for this organisation");
  const claims = await exchangeCode(box, net, config, flow, input.callbackUrl);
  if (config.allowed_domains.length > 0 && !config.allowed_domains.includes(emailDomain(claims.email))) {
    throw new SsoSignInError("domain_not_allowed", `${emailDomain(claims.email)} addresses may not sign in to this organisation`);
  }
  const result = await withTx(sql, async (tx) => {
    const linked = await findSsoIdentityUser(tx, config.org_id, config.issuer, claims.subject);
    const user = linked ? await findUserById(tx, linked) : await linkOrCreate(tx, config, claims);
    let provisioned = !linked && !(await findMember(tx, config.org_id, user!.id));
    if (provisioned) await addMember(tx, config, user!.id);
    else if (linked && !(await findMember(tx, config.org_id, linked))) {
      await addMember(tx, config, linked); // removed since, and the provider still vouches for them: back in with the default role
      provisioned = true;
    }
    if (!linked) await insertSsoIdentity(tx, { orgId: config.org_id, issuer: config.issuer, subject: claims.subject, userId: user!.id });
    await insertAudit(tx, {
      orgId: config.org_id,
      actorType: "user",
      actorId: user!.id,
      actorLabel: user!.email,
      action: "auth.sso_sign_in",
      targetType: "user",
      targetId: user!.id,
      ip: input.ip,
      details: { issuer: config.issuer, subject: claims.subject, provisioned, ...(provisioned ? { role_id: config.default_role_id } : {}) },
    });
    return { user: user!, orgId: config.org_id, provisioned };
  });
  return result;
}

async function exchangeCode(box: SecretBox, net: SsoNetwork, config: SsoConfigRow, flow: Flow, callbackUrl: URL): Promise<Claims> {
  let claims: oidc.IDToken | undefined;
  try {
    const provider = await discoverProvider(net, { issuer: config.issuer, clientId: config.client_id, clientSecret: box.decrypt(config.client_secret_enc) });
    const tokens = await oidc.authorizationCodeGrant(provider, callbackUrl, {
      pkceCodeVerifier: flow.verifier,
      expectedState: flow.state,
      expectedNonce: flow.nonce,
      idTokenExpected: true,
    });
    claims = tokens.claims();
  } catch (err) {
    throw new SsoSignInError("provider_error", `Sign-in with the identity provider failed: ${providerFailure(err)}`);
  }
  if (!claims) throw new SsoSignInError("provider_error", "The identity provider sent no ID token");
  const email = typeof claims.email === "string" ? claims.email.trim() : "";
  if (!/^[^@\s]+@[^@\s]+$/.test(email)) throw new SsoSignInError("email_missing", "The identity provider did not share an email address (scope email)");
  const name = typeof claims.name === "string" && claims.name.trim() ? claims.name.trim().slice(0, 120) : email.slice(0, email.indexOf("@"));
  return { subject: claims.sub, email, emailVerified: claims.email_verified === true, name };
}

/**
 * A first sign-in of this subject. An existing account is linked only when it is already a member of
 * this organisation and the provider says the email is verified: a provider controls only its own
 * organisation's members, never another account that happens to share the address.
 */
async function linkOrCreate(tx: Sql, config: SsoConfigRow, claims: Claims): Promise<UserRow> {
  const existing = await findUserByEmail(tx, claims.email);
  if (existing) {
    if (!(await findMember(tx, config.org_id, existing.id))) {
      throw new SsoSignInError("account_exists", "An account with this email exists outside this organisation; an admin can invite it, then sign in with SSO");
    }
    if (!claims.emailVerified) throw new SsoSignInError("email_unverified", "The identity provider has not verified this email address");
    return existing;
  }
  // No usable password: a provisioned user sets one through a password reset if SSO is ever turned off.
  const passwordHash = await hashPassword(randomToken(32));
  const user = await insertUser(tx, { id: newId("usr"), email: claims.email, name: claims.name, passwordHash });
  if (claims.emailVerified) await markEmailVerified(tx, user.id, user.email);
  return user;
}

async function addMember(tx: Sql, config: SsoConfigRow, userId: string): Promise<void> {
  try {
    await assertQuota(tx, config.org_id, "members", 1);
  } catch {
    throw new SsoSignInError("members_quota", "The organisation has no room for another member on its plan");
  }
  const isDefault = (await countUserMemberships(tx, userId)) === 0;
  await insertMembership(tx, { orgId: config.org_id, userId, roleId: config.default_role_id, isDefault });
}

/** Password sign-in is refused for members of an organisation that requires SSO, unless they own it (break-glass). */
export async function assertPasswordSignInAllowed(sql: Sql, userId: string): Promise<void> {
  const [required] = await ssoRequiredFor(sql, userId);
  if (required) {
    throw new AppError(403, "PERMISSION_DENIED", "Your organisation requires single sign-on; use Sign in with SSO", { reason: "sso_required", org_slug: required.slug });
  }
}
