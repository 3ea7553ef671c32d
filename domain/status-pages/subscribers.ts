import { randomBytes } from "node:crypto";
import { hashToken, type SecretBox } from "../../core/crypto/secrets.ts";
import { type Sql, withTx } from "../../db/client.ts";
import { notFound, validationError } from "../../core/errors.ts";
import { newId } from "../../core/ids.ts";
import type { Logger } from "../../core/log.ts";
import { enqueueMail } from "../mail/enqueue.ts";
import {
  confirmSubscriber,
  deleteSubscriber,
  deleteSubscriberByToken,
  findSubscriberOfPage,
  listSubscribers,
  type SubscriberRow,
  upsertSubscriber,
} from "../../db/queries/subscribers.ts";
import { findPageById, type StatusPageRow } from "../../db/queries/status-pages.ts";
import { type Ctx, getPage } from "./service.ts";
import { CONFIRM_TTL_SECONDS, UNSUBSCRIBE_TTL_SECONDS, signSubscriberToken, verifySubscriberToken } from "./tokens.ts";

export interface MailCtx {
  sql: Sql;
  box: SecretBox;
  baseUrl: string;
  log: Logger;
}

/** A webhook subscriber's URL as stored: encrypted (it often carries the receiver's token) and hashed to find duplicates. */
export const sealWebhookUrl = (box: SecretBox, url: string) => ({ enc: box.encrypt(url), hash: hashToken(url) });

/** A new Standard Webhooks signing secret for a webhook subscription: `whsec_` + 24 random bytes in base64. */
const newWebhookSecret = () => `whsec_${randomBytes(24).toString("base64")}`;

/** The secrets a webhook subscriber's notices are signed with: the current one, then the previous one while set; none for a row of an earlier release. */
export const subscriberWebhookSecrets = (box: SecretBox, sub: Pick<SubscriberRow, "webhook_secret_enc" | "webhook_previous_secret_enc">): string[] =>
  [sub.webhook_secret_enc, sub.webhook_previous_secret_enc].filter((enc): enc is string => enc !== null).map((enc) => box.decrypt(enc));

/** The URL a webhook subscriber is sent to: decrypted, or in clear in a row of an earlier release not sealed yet. */
export const subscriberWebhookUrl = (box: SecretBox, sub: Pick<SubscriberRow, "webhook_url" | "webhook_url_enc">): string | null =>
  sub.webhook_url_enc ? box.decrypt(sub.webhook_url_enc) : sub.webhook_url;

/**
 * How a webhook subscriber's URL is shown: its origin, which says where notices go, then the rest
 * masked like a channel secret (`••••` plus the last 4 characters when the rest has 12 or more).
 */
export function maskWebhookUrl(url: string): string {
  if (!URL.canParse(url)) return "••••";
  const origin = new URL(url).origin;
  const rest = url.startsWith(`${origin}/`) ? url.slice(origin.length + 1) : url;
  return `${origin}/••••${rest.length >= 12 ? rest.slice(-4) : ""}`;
}

const EMAIL_RE = /^[^\s@<>"]{1,64}@[^\s@<>"]{1,255}\.[^\s@<>".]{2,}$/;
const nowS = () => Math.floor(Date.now() / 1000);

export function unsubscribeUrl(m: Pick<MailCtx, "box" | "baseUrl">, sub: Pick<SubscriberRow, "id" | "page_id">): string {
  const token = signSubscriberToken(m.box, "unsubscribe", { subscriberId: sub.id, pageId: sub.page_id, exp: nowS() + UNSUBSCRIBE_TTL_SECONDS });
  return `${m.baseUrl}/api/v1/unsubscribe?token=${encodeURIComponent(token)}`;
}

/** RFC 2369 + RFC 8058 headers every subscriber email carries. */
export function unsubscribeHeaders(url: string): Record<string, string> {
  return { "List-Unsubscribe": `<${url}>`, "List-Unsubscribe-Post": "List-Unsubscribe=One-Click" };
}

/** Queues the double opt-in mail in the outbox (with `tx`, the subscription's transaction); the alerting role sends it. */
async function sendConfirmation(m: MailCtx, tx: Sql, page: StatusPageRow, sub: SubscriberRow): Promise<void> {
  const token = signSubscriberToken(m.box, "confirm", { subscriberId: sub.id, pageId: page.id, exp: nowS() + CONFIRM_TTL_SECONDS });
  const confirm = `${m.baseUrl}/status/${page.slug}/confirm?token=${encodeURIComponent(token)}`;
  const unsubscribe = unsubscribeUrl(m, sub);
  await enqueueMail(
    tx,
    {
      kind: "subscription_confirmation",
      orgId: page.org_id,
      to: sub.email!,
      subject: `Confirm your subscription to ${page.name}`,
      text: `Someone (hopefully you) asked to receive incident updates from ${page.name}.\n\nConfirm: ${confirm}\n\nIf it was not you, ignore this message or unsubscribe: ${unsubscribe}\n`,
      headers: unsubscribeHeaders(unsubscribe),
    },
    m.box,
  );
}

function normaliseEmail(email: string): string {
  const e = email.trim();
  if (!EMAIL_RE.test(e)) throw validationError([{ path: "body.email", message: "not an email address" }]);
  return e;
}

function normaliseWebhook(url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw validationError([{ path: "body.webhook_url", message: "not a URL" }]);
  }
  if (u.protocol !== "https:" && u.protocol !== "http:") throw validationError([{ path: "body.webhook_url", message: "http or https only" }]);
  return u.toString();
}

/** Email subscribers stay unconfirmed until they follow the signed link (double opt-in). */
export async function subscribeEmail(m: MailCtx, page: StatusPageRow, email: string): Promise<SubscriberRow> {
  const address = normaliseEmail(email);
  return withTx(m.sql, async (tx) => {
    const { row } = await upsertSubscriber(tx, { id: newId("sub"), orgId: page.org_id, pageId: page.id, kind: "email", email: address, webhook: null, confirmed: false });
    if (!row.confirmed_at) await sendConfirmation(m, tx, page, row);
    return row;
  });
}

/**
 * Management API: email (double opt-in) or webhook (active at once: the organisation added it). A webhook
 * subscription gets a new signing secret, returned here only (shown once); adding the same URL again
 * issues another and keeps the one before valid until the next (both sign meanwhile).
 */
export async function addSubscriber(
  ctx: Ctx,
  m: MailCtx,
  pageId: string,
  input: { email?: string; webhook_url?: string },
): Promise<{ row: SubscriberRow; webhookSecret: string | null }> {
  const page = await getPage(ctx, pageId);
  if ((input.email === undefined) === (input.webhook_url === undefined)) throw validationError([{ path: "body", message: "give exactly one of email and webhook_url" }]);
  if (input.email !== undefined) return { row: await subscribeEmail(m, page, input.email), webhookSecret: null };
  const secret = newWebhookSecret();
  const webhook = { ...sealWebhookUrl(m.box, normaliseWebhook(input.webhook_url!)), secretEnc: m.box.encrypt(secret) };
  const { row } = await upsertSubscriber(ctx.sql, { id: newId("sub"), orgId: page.org_id, pageId, kind: "webhook", email: null, webhook, confirmed: true });
  return { row, webhookSecret: secret };
}

export async function listPageSubscribers(ctx: Ctx, pageId: string, limit: number, offset: number) {
  await getPage(ctx, pageId);
  return listSubscribers(ctx.sql, ctx.actor.orgId, pageId, limit, offset);
}

export async function removeSubscriber(ctx: Ctx, pageId: string, id: string): Promise<void> {
  if (!(await deleteSubscriber(ctx.sql, ctx.actor.orgId, pageId, id))) throw notFound("Subscriber");
}

/**
 * What a confirmation link names, changing nothing: opening the link (GET) only asks, because mail
 * scanners prefetch links; null when the token is bad or the subscription is gone.
 */
export async function lookUpConfirmation(sql: Sql, box: SecretBox, token: string): Promise<{ page: StatusPageRow; subscriber: SubscriberRow } | null> {
  const claims = verifySubscriberToken(box, "confirm", token);
  if (!claims) return null;
  const subscriber = await findSubscriberOfPage(sql, claims.pageId, claims.subscriberId);
  const page = subscriber ? await findPageById(sql, claims.pageId) : undefined;
  return subscriber && page ? { page, subscriber } : null;
}

/** Confirms by a confirmation link's token (the POST of its page); null when the token is bad or the subscription is gone. */
export async function confirmByToken(sql: Sql, box: SecretBox, token: string): Promise<{ page: StatusPageRow; subscriber: SubscriberRow } | null> {
  const claims = verifySubscriberToken(box, "confirm", token);
  if (!claims) return null;
  const subscriber = await confirmSubscriber(sql, claims.pageId, claims.subscriberId);
  const page = subscriber ? await findPageById(sql, claims.pageId) : undefined;
  return subscriber && page ? { page, subscriber } : null;
}

export type UnsubscribeOutcome = { ok: false } | { ok: true; removed: boolean; page: StatusPageRow | undefined };

export type UnsubscribeLookup = { ok: false } | { ok: true; subscribed: boolean; page: StatusPageRow | undefined };

/** What an unsubscribe link names, changing nothing (GET shows it and asks; mail scanners prefetch links). */
export async function lookUpUnsubscribe(sql: Sql, box: SecretBox, token: string): Promise<UnsubscribeLookup> {
  const claims = verifySubscriberToken(box, "unsubscribe", token);
  if (!claims) return { ok: false };
  const subscriber = await findSubscriberOfPage(sql, claims.pageId, claims.subscriberId);
  return { ok: true, subscribed: !!subscriber, page: await findPageById(sql, claims.pageId) };
}

/** One-click unsubscribe (POST only): idempotent (a second click finds nothing to remove and still succeeds). */
export async function unsubscribeByToken(sql: Sql, box: SecretBox, token: string): Promise<UnsubscribeOutcome> {
  const claims = verifySubscriberToken(box, "unsubscribe", token);
  if (!claims) return { ok: false };
  const removed = await deleteSubscriberByToken(sql, claims.pageId, claims.subscriberId);
  return { ok: true, removed, page: await findPageById(sql, claims.pageId) };
}
