import { type TSchema, Type } from "@sinclair/typebox";
import { CHECK_TYPES, type CheckType, configSchemas } from "./check-types.ts";

/**
 * The `watchpost.yaml` / `watchpost.json` file of the `watchpost` CLI (docs/cli.md): monitors keyed by a
 * stable `key`. Built from the check types' own config schemas, so the published JSON Schema
 * (docs/watchpost-config.schema.json, `watchpost schema`) always matches what the API accepts.
 */
export const CONFIG_FILE_VERSION = 1;
export const CONFIG_SCHEMA_ID = "https://watchpost.dev/schemas/watchpost-config.schema.json";

/** A key fits a monitor tag (`wp-key:` + key, at most 64 characters). */
export const MonitorKey = Type.String({
  pattern: "^[a-z0-9][a-z0-9._-]{0,56}$",
  description: "Stable identity of the monitor in this file: lower-case letters, digits, '.', '_' and '-'. Renaming the monitor keeps its key; changing the key replaces it.",
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

/** The whole file; `monitors[].type` picks the entry's schema. */
const WatchpostConfigSchema = Type.Object(
  {
    $schema: Type.Optional(Type.String()),
    version: Type.Literal(CONFIG_FILE_VERSION),
    monitors: Type.Array(Type.Union(CHECK_TYPES.map((t) => monitorEntrySchemas[t])), { maxItems: 10_000 }),
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
