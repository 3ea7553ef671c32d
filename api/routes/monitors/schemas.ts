import { t } from "elysia";
import type { TLiteral, TUnion } from "@sinclair/typebox";
import { CHECK_TYPES, type CheckType } from "../../../schemas/check-types.ts";
import { Id, Obj, PaginationQuery, Timestamp, DisplayName, Int } from "../../schemas/common.ts";

/** One literal per registered check type (schemas/check-types.ts); typed as one literal of the type union, which Elysia infers (an array type infers never). */
const CheckTypeName = t.Union(CHECK_TYPES.map((c) => t.Literal(c))) as unknown as TUnion<[TLiteral<CheckType>]>;
const MonitorStatus = t.Union(["pending", "up", "down", "degraded", "timeout"].map((s) => t.Literal(s)));
/** A tag: at most 64 characters, or the watchpost CLI's key tag `wp-key:[<project>/]<key>` (up to 89: a project's key is longer). */
const Tag = t.String({
  minLength: 1,
  maxLength: 89,
  pattern: "^(?:wp-key:(?:[a-z0-9][a-z0-9_-]{0,23}/)?[a-z0-9][a-z0-9._-]{0,56}|[^,]{1,64})$",
  description: "At most 64 characters, no comma; the watchpost CLI's key tag wp-key:<project>/<key> may be longer",
});
const Region = t.String({ minLength: 1, maxLength: 64, pattern: "^[a-z0-9-]+$" });

const ConfigField = t.Record(t.String(), t.Unknown(), {
  description: "The check type's settings; validated against the type's schema (components.schemas.<Type>Config, e.g. HttpConfig).",
  "x-config-of": "check",
});

const common = {
  name: DisplayName(200),
  interval_seconds: Int({ minimum: 10, maximum: 86_400, description: "Seconds between checks; the plan sets the minimum" }),
  timeout_ms: Int({ minimum: 100, maximum: 120_000, description: "At most the interval" }),
  regions: t.Array(Region, { maxItems: 32, description: "Cloud regions to check from" }),
  runner_ids: t.Array(Id, { maxItems: 32, description: "Self-hosted runners to check from" }),
  tags: t.Array(Tag, { maxItems: 32, description: "Monitor groups" }),
  paused: t.Boolean(),
};

export const MonitorCreateBody = Obj({
  name: common.name,
  type: CheckTypeName,
  config: ConfigField,
  interval_seconds: t.Optional(common.interval_seconds),
  timeout_ms: t.Optional(common.timeout_ms),
  regions: t.Optional(common.regions),
  runner_ids: t.Optional(common.runner_ids),
  tags: t.Optional(common.tags),
  paused: t.Optional(common.paused),
});

export const MonitorPatchBody = Obj({
  name: t.Optional(common.name),
  type: t.Optional(CheckTypeName),
  config: t.Optional(ConfigField),
  interval_seconds: t.Optional(common.interval_seconds),
  timeout_ms: t.Optional(common.timeout_ms),
  regions: t.Optional(common.regions),
  runner_ids: t.Optional(common.runner_ids),
  tags: t.Optional(common.tags),
  paused: t.Optional(common.paused),
});

export const MonitorView = t.Object({
  id: t.String(),
  name: t.String(),
  type: CheckTypeName,
  config: t.Record(t.String(), t.Unknown(), {
    description: "The check type's settings (components.schemas.<Type>Config); secrets (HTTP auth) appear as ••••••••: send that back to keep them",
    "x-config-of": "check",
  }),
  interval_seconds: Int(),
  timeout_ms: Int(),
  regions: t.Array(t.String()),
  runner_ids: t.Array(t.String()),
  tags: t.Array(t.String()),
  paused: t.Boolean(),
  suspended: t.Boolean({ description: "Over the plan's quota after a downgrade: kept but not scheduled" }),
  monitored: t.Boolean({ description: "false when the monitor has no region and no runner to run on (its runners were revoked): each due check is recorded unavailable (monitoring_unavailable)" }),
  not_monitored_reason: t.Union([t.String(), t.Null()], { description: "Why monitored is false; null otherwise" }),
  status: MonitorStatus,
  status_changed_at: t.Union([Timestamp, t.Null()]),
  last_checked_at: t.Union([Timestamp, t.Null()]),
  last_duration_ms: t.Union([Int(), t.Null()]),
  heartbeat_url: t.Optional(t.String({ description: "Heartbeat monitors: GET or POST this URL to report in" })),
  created_at: Timestamp,
  updated_at: Timestamp,
});

export const MonitorListQuery = Obj({
  ...PaginationQuery,
  type: t.Optional(CheckTypeName),
  status: t.Optional(MonitorStatus),
  tag: t.Optional(Tag),
  paused: t.Optional(t.Boolean()),
  suspended: t.Optional(t.Boolean({ description: "true: only the monitors suspended over the plan's quota (kept, not scheduled); false: only the others" })),
  search: t.Optional(t.String({ minLength: 1, maxLength: 200, description: "Part of the name, case-insensitive" })),
  sort: t.Optional(
    t.Union([t.Literal("created"), t.Literal("name"), t.Literal("status"), t.Literal("response_time")], {
      default: "created",
      description: "created: newest first (default); name: A to Z; status: worst first (down, timeout, degraded, pending, up; paused last); response_time: slowest last check first",
    }),
  ),
});

export const BulkBody = Obj(
  {
    ids: t.Optional(t.Array(Id, { minItems: 1, maxItems: 1000 })),
    tag: t.Optional(Tag),
  },
  { minProperties: 1, description: "ids, tag or both" },
);

export const BulkResult = t.Object({ matched: Int(), affected: Int(), ids: t.Array(t.String()) });

export const RunNowResult = t.Object({
  id: t.Union([t.String(), t.Null()], { description: "The stored check (GET /monitors/:id/checks/:checkId); null when not recorded" }),
  status: t.Union([t.Literal("up"), t.Literal("down"), t.Literal("degraded"), t.Literal("timeout")]),
  duration_ms: t.Number(),
  error: t.Optional(t.String()),
  data: t.Record(t.String(), t.Unknown()),
  checked_at: Timestamp,
  location: t.String(),
  recorded: t.Boolean({ description: "true when the result was stored like a scheduled check (false for a paused or suspended monitor)" }),
});

/** POST /monitors/test: what a create takes that decides how the check runs; nothing is stored. */
export const MonitorTestBody = Obj({
  name: t.Optional(common.name),
  type: CheckTypeName,
  config: ConfigField,
  interval_seconds: t.Optional(common.interval_seconds),
  timeout_ms: t.Optional(common.timeout_ms),
  regions: t.Optional(common.regions),
  runner_ids: t.Optional(common.runner_ids),
});

export const MonitorTestResult = t.Object({
  status: t.Union([t.Literal("up"), t.Literal("down"), t.Literal("degraded"), t.Literal("timeout")]),
  duration_ms: t.Number(),
  error: t.Optional(t.String()),
  data: t.Record(t.String(), t.Unknown(), { description: "The check type's result data, as a stored check carries it" }),
  checked_at: Timestamp,
  location: t.String({ description: "The region or runner id it ran on" }),
});

/** POST /monitors/bulk: the same monitor bodies as POST /monitors, 1 to 1,000 of them (BULK_CREATE_MAX). */
export const BulkCreateBody = Obj({ monitors: t.Array(MonitorCreateBody, { minItems: 1, maxItems: 1000 }) });

export const BulkCreateResult = t.Object({ data: t.Array(MonitorView) });
