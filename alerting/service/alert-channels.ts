import type { Actor } from "../../domain/access/actor.ts";
import type { SecretBox } from "../../core/crypto/secrets.ts";
import { type Sql, withTx } from "../../db/client.ts";
import { AppError, conflict, type ErrorCode, notFound, validationError } from "../../core/errors.ts";
import { type Bus, NoResponderError, RemoteError, RequestTimeoutError } from "../../core/bus/index.ts";
import { CHANNEL_TEST_SUBJECT, type ChannelTestRequest, type TestSendResult } from "../../schemas/messages/channel-test.ts";
import { newId } from "../../core/ids.ts";
import { assertQuota } from "../../billing/entitlements.ts";
import {
  type AlertChannelRow,
  configKeyTaken,
  deleteAlertChannel,
  findAlertChannel,
  insertAlertChannel,
  listAlertChannels,
  updateAlertChannel,
} from "../../db/queries/alert-channels.ts";
import { channelReferences } from "../../db/queries/alert-rules.ts";
import { channelSpecOf, channelTypes, type ChannelType, isChannelType } from "../../schemas/channel-types.ts";
import type { AlertEventKind } from "../../schemas/channels/channel-spec.ts";
import { maskSecrets, restoreMaskedSecrets, validateChannelConfig } from "./channel-config.ts";
import type { MessageFormat, MessageTemplate } from "../../schemas/channels/message-template.ts";
import { isValidTimeZone } from "../../schemas/maintenance/zoned-time.ts";
import { bindTemplate, sampleEvent, type TemplateSettings, templateIssues } from "./message-template.ts";

export interface ChannelView {
  id: string;
  name: string;
  type: ChannelType;
  config: Record<string, unknown>;
  enabled: boolean;
  /** The channel's own message template; null: Watchpost's layout. */
  template: MessageTemplate | null;
  timezone: string;
  key: string | null;
  created_at: string;
  updated_at: string;
}

export interface ChannelInput {
  name: string;
  type: string;
  config: Record<string, unknown>;
  enabled?: boolean;
  template?: MessageTemplate | null;
  timezone?: string;
  /** A config file's stable key for the channel (null clears it). */
  key?: string | null;
}

interface Ctx {
  sql: Sql;
  actor: Actor;
  box: SecretBox;
}

/** Two attempts of at most the channel timeout each, with a short backoff between. */
const CHANNEL_TEST_TIMEOUT_MS = 30_000;

export const decryptChannelConfig = (box: SecretBox, row: Pick<AlertChannelRow, "config_enc">): Record<string, unknown> =>
  JSON.parse(box.decrypt(row.config_enc)) as Record<string, unknown>;

function toChannelView(box: SecretBox, row: AlertChannelRow): ChannelView {
  const type = row.type as ChannelType;
  return {
    id: row.id,
    name: row.name,
    type,
    config: maskSecrets(type, decryptChannelConfig(box, row)),
    enabled: row.enabled,
    template: row.message_template,
    timezone: row.timezone,
    key: row.config_key,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

/** The config's problems and the template's, in one 400, so a form shows them all at once. */
/** A JSON pointer (`/headers/X-A`) as the dotted tail of an issue path (`.headers.X-A`), as every other issue path is written. */
const dotted = (pointer: string) =>
  pointer === "/" ? "" : pointer.split("/").map((seg) => seg.replaceAll("~1", "/").replaceAll("~0", "~")).join(".");

function checkChannel(type: string, config: unknown, template: MessageTemplate | null | undefined, timezone: string | undefined): asserts type is ChannelType {
  const issues = validateChannelConfig(type, config).map((i) => ({ path: i.path === "/type" ? "body.type" : `body.config${dotted(i.path)}`, message: i.message }));
  issues.push(...templateSettingsIssues(template, timezone));
  if (issues.length > 0) throw validationError(issues);
}

/** What a delivery needs of the channel row to bind its template (alerting/service/message-template.ts). */
export const templateSettingsOf = (row: Pick<AlertChannelRow, "message_template" | "timezone">): TemplateSettings => ({
  template: row.message_template,
  timezone: row.timezone,
});

/** An empty template ({} or blank parts) means none: the channel goes back to Watchpost's layout. */
function normaliseTemplate(template: MessageTemplate | null | undefined): MessageTemplate | null {
  if (!template) return null;
  const out: MessageTemplate = {};
  if (template.title?.trim()) out.title = template.title;
  if (template.body?.trim()) out.body = template.body;
  return out.title === undefined && out.body === undefined ? null : out;
}

/** Unknown variables, syntax errors and an unknown time zone, each named. */
function templateSettingsIssues(template: MessageTemplate | null | undefined, timezone: string | undefined) {
  const issues = templateIssues(template, "body.template");
  if (timezone !== undefined && !isValidTimeZone(timezone)) issues.push({ path: "body.timezone", message: `Unknown time zone "${timezone}"; use an IANA name such as Europe/Berlin` });
  return issues;
}

/** 409 when another channel of the organisation has the key (the config file's keys are unique). */
async function assertKeyFree(tx: Sql, orgId: string, key: string | null | undefined, exceptId: string | null) {
  if (key && (await configKeyTaken(tx, orgId, key, exceptId))) throw conflict(`Another alert channel has the key "${key}"`, { key });
}

export async function createChannel(ctx: Ctx, input: ChannelInput): Promise<ChannelView> {
  checkChannel(input.type, input.config, input.template, input.timezone);
  return withTx(ctx.sql, async (tx) => {
    // Serialises concurrent creates in one organisation so the quota cannot be overshot.
    await tx`select pg_advisory_xact_lock(hashtext(${`alert_channels:${ctx.actor.orgId}`}))`;
    await assertQuota(tx, ctx.actor.orgId, "alert_channels", 1);
    await assertKeyFree(tx, ctx.actor.orgId, input.key, null);
    const row = await insertAlertChannel(tx, ctx.actor.orgId, newId("ach"), {
      name: input.name,
      type: input.type,
      configEnc: ctx.box.encrypt(JSON.stringify(input.config)),
      enabled: input.enabled ?? true,
      messageTemplate: normaliseTemplate(input.template),
      timezone: input.timezone ?? "UTC",
      configKey: input.key ?? null,
    });
    return toChannelView(ctx.box, row);
  });
}

export async function getChannelRow(sql: Sql, orgId: string, id: string): Promise<AlertChannelRow> {
  const row = await findAlertChannel(sql, orgId, id);
  if (!row) throw notFound("Alert channel");
  return row;
}

export async function getChannel(ctx: Ctx, id: string): Promise<ChannelView> {
  return toChannelView(ctx.box, await getChannelRow(ctx.sql, ctx.actor.orgId, id));
}

export async function listChannels(ctx: Ctx, limit: number, offset: number): Promise<{ rows: ChannelView[]; total: number }> {
  const { rows, total } = await listAlertChannels(ctx.sql, ctx.actor.orgId, limit, offset);
  return { rows: rows.map((r) => toChannelView(ctx.box, r)), total };
}

/** A masked secret sent back unchanged keeps the stored secret; changing the type needs a full config. */
export async function patchChannel(ctx: Ctx, id: string, patch: Partial<ChannelInput>): Promise<ChannelView> {
  return withTx(ctx.sql, async (tx) => {
    const row = await getChannelRow(tx, ctx.actor.orgId, id);
    const stored = decryptChannelConfig(ctx.box, row);
    const type = patch.type ?? row.type;
    let config = stored;
    if (patch.config !== undefined) {
      config = type === row.type && isChannelType(type) ? restoreMaskedSecrets(type, patch.config, stored) : patch.config;
    } else if (type !== row.type) {
      throw validationError([{ path: "body.config", message: "Changing the type needs the new type's config" }]);
    }
    checkChannel(type, config, patch.template, patch.timezone);
    // Serialised with creates, so two requests cannot both take one key.
    if (patch.key) await tx`select pg_advisory_xact_lock(hashtext(${`alert_channels:${ctx.actor.orgId}`}))`;
    await assertKeyFree(tx, ctx.actor.orgId, patch.key, id);
    const updated = await updateAlertChannel(tx, ctx.actor.orgId, id, {
      name: patch.name ?? row.name,
      type,
      configEnc: ctx.box.encrypt(JSON.stringify(config)),
      enabled: patch.enabled ?? row.enabled,
      messageTemplate: patch.template === undefined ? row.message_template : normaliseTemplate(patch.template),
      timezone: patch.timezone ?? row.timezone,
      configKey: patch.key === undefined ? row.config_key : patch.key,
    });
    return toChannelView(ctx.box, updated!);
  });
}

/** Refuses (409) while a rule or an escalation policy still sends to the channel. */
export async function removeChannel(ctx: Ctx, id: string): Promise<void> {
  await withTx(ctx.sql, async (tx) => {
    await getChannelRow(tx, ctx.actor.orgId, id);
    const refs = await channelReferences(tx, ctx.actor.orgId, id);
    if (refs.rules.length + refs.policies.length > 0) {
      throw conflict("The channel is still used; remove it from these rules and escalation policies first", { rule_ids: refs.rules, escalation_policy_ids: refs.policies });
    }
    await deleteAlertChannel(tx, ctx.actor.orgId, id);
  });
}

export type { TestSendResult };

/**
 * Sends a `test` event through the real channel: the alerting role does it (notifications leave
 * only from there); this checks the channel is the caller's and asks over the bus. No alerting
 * process connected, or none answering in time: 503.
 */
export async function testChannel(ctx: Ctx & { bus: Bus; orgName: string }, id: string): Promise<TestSendResult> {
  const row = await getChannelRow(ctx.sql, ctx.actor.orgId, id);
  const req: ChannelTestRequest = { orgId: ctx.actor.orgId, channelId: row.id, orgName: ctx.orgName };
  try {
    return await ctx.bus.request<ChannelTestRequest, TestSendResult>(CHANNEL_TEST_SUBJECT, req, { timeoutMs: CHANNEL_TEST_TIMEOUT_MS });
  } catch (err) {
    if (err instanceof NoResponderError) {
      throw new AppError(503, "SERVICE_UNAVAILABLE", "No alerting process is connected to send the test notification", { reason: "no_alerting" });
    }
    if (err instanceof RequestTimeoutError) throw new AppError(503, "SERVICE_UNAVAILABLE", "The alerting process did not answer in time", { reason: "timeout" });
    if (err instanceof RemoteError && err.status !== undefined && err.status < 500) {
      throw new AppError(err.status, (err.code ?? "INTERNAL_ERROR") as ErrorCode, err.message, err.details);
    }
    throw err;
  }
}

export interface PreviewInput {
  type: string;
  template: MessageTemplate;
  timezone?: string;
  kind?: AlertEventKind;
}

export interface MessagePreview {
  /** The rendered title, escaped as the channel escapes it; null when the template has no title (Watchpost's title is sent). */
  title: string | null;
  /** The rendered body; null when the template has no body (Watchpost's layout is sent). */
  body: string | null;
  title_format: MessageFormat;
  body_format: MessageFormat;
}

/** Renders a template with the sample alert, exactly as a channel of `type` would; refuses what saving would refuse. */
export function previewMessage(input: PreviewInput, dashboardUrl: string): MessagePreview {
  if (!isChannelType(input.type)) throw validationError([{ path: "body.type", message: `must be one of ${channelTypes.join(", ")}` }]);
  const issues = templateSettingsIssues(input.template, input.timezone);
  if (issues.length > 0) throw validationError(issues);
  const format = channelSpecOf(input.type).messageFormat;
  const bound = bindTemplate(sampleEvent(input.kind ?? "alert", dashboardUrl), { template: normaliseTemplate(input.template), timezone: input.timezone ?? "UTC" }, dashboardUrl);
  return {
    title: bound?.render("title", format.title) ?? null,
    body: bound?.render("body", format.body) ?? null,
    title_format: format.title,
    body_format: format.body,
  };
}
