import * as oidc from "openid-client";
import { assertQuota } from "../../billing/entitlements.ts";
import type { SecretBox } from "../../core/crypto/secrets.ts";
import { AppError, notFound, validationError } from "../../core/errors.ts";
import { newId, randomToken } from "../../core/ids.ts";
import { type Sql, withTx } from "../../db/client.ts";
import { insertAudit } from "../../db/queries/audit-log.ts";
import { countUserMemberships, findMember, insertMembership } from "../../db/queries/members.ts";
import { findSsoConfig, findSsoConfigBySlug, findSsoConfigsByDomain, findSsoIdentityUser, insertSsoIdentity, passwordOrgCount, type SsoConfigRow, ssoRequiredFor } from "../../db/queries/sso.ts";
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
  | "domain_not_allowed"
  | "link_required"
  | "identity_in_use"
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
  /** Linking: the signed-in user who started it, whom the provider's subject is linked to (no session is opened). */
  link?: string;
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
  return authorizationRequest(box, net, config, input.redirectUri, input.email, undefined);
}

/**
 * Linking single sign-on to an account: a user signed in with their password (and second factor) starts the
 * provider's sign-in for the organisation they act in; the callback links the provider's subject to them. This is
 * the only way an existing account gets an SSO identity: a provider is configured by the organisation's admins and
 * may assert any address, so it never signs in as an account by its email alone.
 */
export async function startSsoLink(sql: Sql, box: SecretBox, net: SsoNetwork, input: { userId: string; orgId: string; redirectUri: string }): Promise<{ redirectUrl: string; flow: string; orgSlug: string }> {
  const config = await findSsoConfig(sql, input.orgId);
  if (!config) throw notFound("Single sign-on for this organisation");
  if (!(await findMember(sql, config.org_id, input.userId))) throw notFound("Organisation");
  return authorizationRequest(box, net, config, input.redirectUri, undefined, input.userId);
}

async function authorizationRequest(box: SecretBox, net: SsoNetwork, config: SsoConfigRow, redirectUri: string, email: string | undefined, link: string | undefined) {
  let provider: oidc.Configuration;
  try {
    provider = await discoverProvider(net, { issuer: config.issuer, clientId: config.client_id, clientSecret: box.decrypt(config.client_secret_enc) });
  } catch {
    // Anyone may start a sign-in: the provider's address and the network's answer are for the admins, whose
    // connection test (POST /org/sso/test) reports them.
    throw new AppError(503, "SERVICE_UNAVAILABLE", "The organisation's identity provider could not be reached; try again later, or ask its admins to test the connection", { reason: "provider_unreachable" });
  }
  const flow: Flow = { org: config.org_id, config: config.id, state: oidc.randomState(), nonce: oidc.randomNonce(), verifier: oidc.randomPKCECodeVerifier(), exp: Date.now() + FLOW_TTL_MS, ...(link ? { link } : {}) };
  const url = oidc.buildAuthorizationUrl(provider, {
    redirect_uri: redirectUri,
    scope: "openid email profile",
    response_type: "code",
    code_challenge: await oidc.calculatePKCECodeChallenge(flow.verifier),
    code_challenge_method: "S256",
    state: flow.state,
    nonce: flow.nonce,
    ...(email ? { login_hint: email } : {}),
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
  /** A link flow: the subject was linked to the signed-in user who started it; no session is opened for it. */
  linked: boolean;
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
  if (flow.link) return linkIdentity(sql, config, claims, flow.link, input.ip);
  const result = await withTx(sql, async (tx) => {
    const linked = await findSsoIdentityUser(tx, config.org_id, config.issuer, claims.subject);
    const user = linked ? await findUserById(tx, linked) : await createUser(tx, claims);
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
    return { user: user!, orgId: config.org_id, provisioned, linked: false };
  });
  return result;
}

/** The link flow's end: the provider's subject now signs in as the user who started it (a member of the organisation). */
async function linkIdentity(sql: Sql, config: SsoConfigRow, claims: Claims, userId: string, ip: string | null): Promise<SsoSignIn> {
  return withTx(sql, async (tx) => {
    const user = await findUserById(tx, userId);
    if (!user || !(await findMember(tx, config.org_id, userId))) throw new SsoSignInError("not_configured", "You are no longer a member of this organisation");
    const holder = await findSsoIdentityUser(tx, config.org_id, config.issuer, claims.subject);
    if (holder && holder !== userId) throw new SsoSignInError("identity_in_use", "This identity at the provider already signs in as another account");
    if (!holder) await insertSsoIdentity(tx, { orgId: config.org_id, issuer: config.issuer, subject: claims.subject, userId });
    await insertAudit(tx, {
      orgId: config.org_id,
      actorType: "user",
      actorId: userId,
      actorLabel: user.email,
      action: "auth.sso_link",
      targetType: "user",
      targetId: userId,
      ip,
      details: { issuer: config.issuer, subject: claims.subject, provider_email: claims.email },
    });
    return { user, orgId: config.org_id, provisioned: false, linked: true };
  });
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
 * A first sign-in of this subject: a new user. An existing account with the same email is never signed in as: the
 * provider is configured by the organisation's admins and may assert any address (an admin could sign in as the
 * owner, or as a member with a second factor and other organisations). The account links itself instead, signed in
 * with its password: Account → Single sign-on (startSsoLink).
 */
async function createUser(tx: Sql, claims: Claims): Promise<UserRow> {
  const existing = await findUserByEmail(tx, claims.email);
  if (existing) {
    throw new SsoSignInError("link_required", "An account with this email exists: sign in with your password, then link single sign-on under Account");
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

/** Password sign-in is refused to members of organisations that require SSO, unless they own one or belong to another that does not (break-glass: owners). */
export async function assertPasswordSignInAllowed(sql: Sql, userId: string): Promise<void> {
  // Refused only where no organisation of the user takes a password: one organisation's policy does not reach the
  // others (a password session is refused in the ones that require SSO: findSessionIdentity's sso_required).
  const [required] = await ssoRequiredFor(sql, userId);
  if (required && (await passwordOrgCount(sql, userId)) === 0) {
    throw new AppError(403, "PERMISSION_DENIED", "Your organisation requires single sign-on; use Sign in with SSO", { reason: "sso_required", org_slug: required.slug });
  }
}
