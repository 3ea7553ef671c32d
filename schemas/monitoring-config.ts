import { type TObject, type TSchema, Type } from "@sinclair/typebox";
import { CHECK_TYPES, type CheckType, configSchemas } from "./check-types.ts";
import { channelSpecOf, type ChannelType, channelTypes } from "./channel-types.ts";
import { conditionSchemas } from "./alerting/conditions.ts";

/**
 * The `watchpost.yaml` / `watchpost.json` file of the `watchpost` CLI (docs/cli.md): monitors keyed by a
 * stable `key`. Built from the check types' own config schemas, so the published JSON Schema
 * (docs/watchpost-config.schema.json, `watchpost schema`) always matches what the API accepts.
 */
export const CONFIG_FILE_VERSION = 1;
export const CONFIG_SCHEMA_ID = "https://watchpost.dev/schemas/watchpost-config.schema.json";

/** A key fits a monitor tag (`wp-key:` + key, at most 64 characters; with a project, `wp-key:<project>/<key>`). */
export const MonitorKey = Type.String({
  pattern: "^[a-z0-9][a-z0-9._-]{0,56}$",
  description: "Stable identity of the monitor in this file: lower-case letters, digits, '.', '_' and '-'. Renaming the monitor keeps its key; changing the key replaces it.",
});

/**
 * The file's project: every item it manages is stored under `<project>/<key>`, and `--prune` deletes only the
 * project's items. One per repository, so several files share an organisation.
 */
export const PROJECT_PATTERN = "^[a-z0-9][a-z0-9_-]{0,23}$";
export const ProjectName = Type.String({
  pattern: PROJECT_PATTERN,
  description:
    "The file's project: lower-case letters, digits, '_' and '-', at most 24 characters. Its items are stored under the key <project>/<key>; apply --prune deletes only this project's items. Give each repository its own project.",
});

/** A reference to a monitor, channel or policy: a key in this file, or the stored key of one elsewhere (`ops-hook`, `billing/api`). */
const RefKey = Type.String({
  pattern: "^(?:[a-z0-9][a-z0-9_-]{0,23}/)?[a-z0-9][a-z0-9._-]{0,56}$",
  description: "A key of this file, or the stored key of one made elsewhere (another project's as <project>/<key>)",
});

const Tag = Type.String({ minLength: 1, maxLength: 64, pattern: "^[^,]+$" });

/** One monitor entry for `type`; optional fields left out are not managed (the server's default or current value stays). */
function monitorEntrySchema(type: CheckType): TSchema {
  return Type.Object(
    {
      key: MonitorKey,
      name: Type.String({ minLength: 1, maxLength: 200 }),
      type: Type.Literal(type),
      config: configSchemas[type] as TSchema,
      interval_seconds: Type.Optional(Type.Integer({ minimum: 10, maximum: 86_400, description: "Seconds between checks; the plan sets the minimum" })),
      timeout_ms: Type.Optional(Type.Integer({ minimum: 100, maximum: 120_000 })),
      regions: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 64, pattern: "^[a-z0-9-]+$" }), { maxItems: 32 })),
      runner_ids: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { maxItems: 32 })),
      tags: Type.Optional(Type.Array(Tag, { maxItems: 31, description: "Tags besides the wp-key: tag the CLI adds" })),
      paused: Type.Optional(Type.Boolean()),
    },
    { additionalProperties: false, title: `${type} monitor` },
  );
}

export const monitorEntrySchemas = Object.fromEntries(CHECK_TYPES.map((t) => [t, monitorEntrySchema(t)])) as Record<CheckType, TSchema>;

/** A `${NAME}` reference to an environment variable (how the file holds secrets). */
const EnvRef = Type.String({ pattern: "\\$\\{[A-Za-z_][A-Za-z0-9_]*\\}", description: "${NAME}: the value of environment variable NAME" });

/** A channel type's config where each secret field may also be a ${NAME} reference (its own pattern applies to the value). */
function channelConfigForFile(type: ChannelType): TSchema {
  const spec = channelSpecOf(type);
  const config = spec.config as TObject;
  const properties: Record<string, TSchema> = { ...config.properties };
  for (const field of spec.secretFields) {
    const original = properties[field];
    if (!original) continue;
    const relaxed = original.type === "object" ? Type.Record(Type.String(), Type.String()) : EnvRef;
    properties[field] = (config.required ?? []).includes(field) ? Type.Union([original, relaxed]) : Type.Optional(Type.Union([original, relaxed]));
  }
  return Type.Object(properties as never, { additionalProperties: false });
}

/** One alert channel entry for `type`; its secret fields hold ${NAME} references. */
function channelEntrySchema(type: ChannelType): TSchema {
  return Type.Object(
    {
      key: MonitorKey,
      name: Type.String({ minLength: 1, maxLength: 200 }),
      type: Type.Literal(type),
      config: channelConfigForFile(type),
      enabled: Type.Optional(Type.Boolean()),
    },
    { additionalProperties: false, title: `${type} alert channel` },
  );
}

export const channelEntrySchemas = Object.fromEntries(channelTypes.map((t) => [t, channelEntrySchema(t)])) as Record<ChannelType, TSchema>;

/** An alert rule: which monitors (by key or tag), the condition, and the channels (by key) it notifies. */
export const RuleEntrySchema = Type.Object(
  {
    key: MonitorKey,
    name: Type.String({ minLength: 1, maxLength: 200 }),
    description: Type.Optional(Type.Union([Type.String({ maxLength: 2000 }), Type.Null()])),
    enabled: Type.Optional(Type.Boolean({ description: "Default true" })),
    scope: Type.Union(
      [
        Type.Object({ monitor: RefKey }, { additionalProperties: false, description: "One monitor, by its key in this file (or the key export gives it)" }),
        Type.Object({ tag: Tag }, { additionalProperties: false, description: "Every monitor with this tag" }),
        Type.Object({ all_monitors: Type.Literal(true) }, { additionalProperties: false }),
      ],
      { description: "{ monitor: KEY }, { tag: TAG } or { all_monitors: true }" },
    ),
    condition: Type.Union(Object.values(conditionSchemas)),
    confirmation: Type.Optional(
      Type.Object(
        {
          consecutive_failures: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, description: "Default 1" })),
          confirmation_regions: Type.Optional(Type.Union([Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { maxItems: 32 }), Type.Null()])),
        },
        { additionalProperties: false },
      ),
    ),
    notifications: Type.Optional(
      Type.Object(
        {
          on_recovery: Type.Optional(Type.Boolean({ description: "Default true" })),
          recurring: Type.Optional(Type.Boolean({ description: "Default false" })),
          recurring_interval_minutes: Type.Optional(Type.Union([Type.Integer({ minimum: 1, maximum: 10_080 }), Type.Null()])),
        },
        { additionalProperties: false },
      ),
    ),
    channels: Type.Optional(
      Type.Array(
        Type.Object({ channel: RefKey, delay_minutes: Type.Optional(Type.Integer({ minimum: 0, maximum: 10_080, description: "Default 0" })) }, { additionalProperties: false }),
        { minItems: 1, maxItems: 50, description: "Channels by key (in this file, or the key export gives them); or give escalation_policy" },
      ),
    ),
    escalation_policy: Type.Optional(RefKey),
  },
  { additionalProperties: false, title: "alert rule", description: "Give channels or escalation_policy (by key), not both" },
);

/** An escalation policy: steps of channels (by key), each after a longer delay than the one before. */
export const EscalationEntrySchema = Type.Object(
  {
    key: MonitorKey,
    name: Type.String({ minLength: 1, maxLength: 200 }),
    steps: Type.Array(
      Type.Object(
        { delay_minutes: Type.Integer({ minimum: 0, maximum: 10_080 }), channels: Type.Array(RefKey, { minItems: 1, maxItems: 20, uniqueItems: true }) },
        { additionalProperties: false },
      ),
      { minItems: 1, maxItems: 10 },
    ),
  },
  { additionalProperties: false, title: "escalation policy" },
);

const PageComponent = Type.Union([
  Type.Object(
    { monitor: RefKey, display_name: Type.String({ minLength: 1, maxLength: 120 }), description: Type.Optional(Type.String({ maxLength: 500 })) },
    { additionalProperties: false, description: "One monitor, by key" },
  ),
  Type.Object(
    { tag: Tag, display_name: Type.String({ minLength: 1, maxLength: 120 }), description: Type.Optional(Type.String({ maxLength: 500 })) },
    { additionalProperties: false, description: "Every monitor with this tag, as one component" },
  ),
]);

/** A status page, keyed by its slug (its URL name, unique per deployment); access settings are not in the file. */
export const StatusPageEntrySchema = Type.Object(
  {
    slug: Type.String({ minLength: 1, maxLength: 64, pattern: "^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$", description: "URL name /status/<slug>: the page's key" }),
    name: Type.String({ minLength: 1, maxLength: 120 }),
    description: Type.Optional(Type.String({ maxLength: 2000 })),
    theme_id: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: "light, dark, high-contrast or a custom theme id" })),
    sections: Type.Optional(
      Type.Array(Type.Object({ name: Type.String({ minLength: 1, maxLength: 120 }), components: Type.Array(PageComponent, { maxItems: 200 }) }, { additionalProperties: false }), {
        maxItems: 50,
        description: "The whole layout in display order (left out: the layout is not managed)",
      }),
    ),
  },
  { additionalProperties: false, title: "status page" },
);

/** A maintenance window: one-off (starts_at, ends_at) or recurring (rrule or cron with duration_minutes). */
export const MaintenanceEntrySchema = Type.Object(
  {
    key: MonitorKey,
    name: Type.String({ minLength: 1, maxLength: 200 }),
    description: Type.Optional(Type.String({ maxLength: 2000 })),
    starts_at: Type.Optional(Type.String({ format: "date-time", description: "RFC 3339; left out: not managed (a recurring window starts when created)" })),
    ends_at: Type.Optional(Type.String({ format: "date-time" })),
    rrule: Type.Optional(Type.String({ minLength: 1, maxLength: 500, description: "RFC 5545 RRULE, e.g. FREQ=WEEKLY;BYDAY=SU;BYHOUR=2" })),
    cron: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    duration_minutes: Type.Optional(Type.Integer({ minimum: 1, maximum: 44_640 })),
    timezone: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: "IANA time zone of rrule/cron; default UTC" })),
    monitors: Type.Optional(Type.Array(RefKey, { maxItems: 1000, description: "Monitors covered, by key; with tags, either covers; neither: every monitor" })),
    tags: Type.Optional(Type.Array(Tag, { maxItems: 64 })),
    pause_monitors: Type.Optional(Type.Boolean({ description: "Default false" })),
    suppress_alerts: Type.Optional(Type.Boolean({ description: "Default true" })),
  },
  { additionalProperties: false, title: "maintenance window" },
);

/** The whole file; `monitors[].type` and `channels[].type` pick the entry's schema. */
const WatchpostConfigSchema = Type.Object(
  {
    $schema: Type.Optional(Type.String()),
    version: Type.Literal(CONFIG_FILE_VERSION),
    project: Type.Optional(ProjectName),
    monitors: Type.Array(Type.Union(CHECK_TYPES.map((t) => monitorEntrySchemas[t])), { maxItems: 10_000 }),
    channels: Type.Optional(Type.Array(Type.Union(channelTypes.map((t) => channelEntrySchemas[t])), { maxItems: 1000, description: "Alert channels, keyed like monitors" })),
    escalation_policies: Type.Optional(Type.Array(EscalationEntrySchema, { maxItems: 1000, description: "Escalation policies, keyed like monitors" })),
    rules: Type.Optional(Type.Array(RuleEntrySchema, { maxItems: 1000, description: "Alert rules, keyed like monitors" })),
    status_pages: Type.Optional(Type.Array(StatusPageEntrySchema, { maxItems: 100, description: "Status pages, keyed by slug" })),
    maintenance: Type.Optional(Type.Array(MaintenanceEntrySchema, { maxItems: 1000, description: "Maintenance windows, keyed like monitors" })),
  },
  {
    $id: CONFIG_SCHEMA_ID,
    title: "Watchpost monitoring-as-code file",
    description: "Strings may reference environment variables as ${NAME}; use them for every secret (passwords, tokens, secret headers).",
    additionalProperties: false,
  },
);

/** The published JSON Schema document (docs/watchpost-config.schema.json, `watchpost schema`). */
export const configJsonSchemaText = () => `${JSON.stringify({ $schema: "http://json-schema.org/draft-07/schema#", ...WatchpostConfigSchema }, null, 2)}\n`;
