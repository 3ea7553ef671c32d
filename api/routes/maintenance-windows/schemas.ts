import { t } from "elysia";
import { Id, Obj, PaginationQuery, Timestamp, DisplayName, Int } from "../../schemas/common.ts";

const Tag = t.String({ minLength: 1, maxLength: 64, pattern: "^[^,]+$" });
const Nullable = <S extends Parameters<typeof t.Union>[0][number]>(s: S) => t.Union([s, t.Null()]);

const fields = {
  name: DisplayName(200),
  description: t.String({ maxLength: 2000 }),
  starts_at: Nullable(Timestamp),
  ends_at: Nullable(Timestamp),
  rrule: Nullable(
    t.String({
      minLength: 1,
      maxLength: 500,
      description: "RFC 5545 RRULE, e.g. FREQ=WEEKLY;BYDAY=SU;BYHOUR=2;BYMINUTE=0, read in `timezone`; DTSTART is starts_at",
    }),
  ),
  cron: Nullable(t.String({ minLength: 1, maxLength: 200, description: "Cron expression (5 or 6 fields), read in `timezone`" })),
  duration_minutes: Nullable(Int({ minimum: 1, maximum: 44_640, description: "Length of each occurrence of a recurring window" })),
  timezone: t.String({ minLength: 1, maxLength: 64, description: "IANA time zone of rrule/cron, e.g. Europe/Berlin; default UTC" }),
  monitor_ids: t.Array(Id, { maxItems: 1000, description: "Monitors covered; with tags, a monitor matching either is covered; neither means every monitor" }),
  tags: t.Array(Tag, { maxItems: 64, description: "Monitor groups covered" }),
  pause_monitors: t.Boolean({ description: "Stop scheduling the covered monitors during the window (no checks, no results)" }),
  suppress_alerts: t.Boolean({ description: "Do not notify about the covered monitors during the window" }),
  key: Nullable(t.String({ pattern: "^(?:[a-z0-9][a-z0-9_-]{0,23}/)?[a-z0-9][a-z0-9._-]{0,56}$", description: "A stable key for monitoring as code (the watchpost CLI's config file; <project>/<key> when the file has a project): unique in the organisation (409 CONFLICT otherwise); renaming keeps it; null clears it" })),
};

export const WindowCreateBody = Obj(
  {
    name: fields.name,
    description: t.Optional(fields.description),
    starts_at: t.Optional(fields.starts_at),
    ends_at: t.Optional(fields.ends_at),
    rrule: t.Optional(fields.rrule),
    cron: t.Optional(fields.cron),
    duration_minutes: t.Optional(fields.duration_minutes),
    timezone: t.Optional(fields.timezone),
    monitor_ids: t.Optional(fields.monitor_ids),
    tags: t.Optional(fields.tags),
    pause_monitors: t.Optional(fields.pause_monitors),
    suppress_alerts: t.Optional(fields.suppress_alerts),
    key: t.Optional(fields.key),
  },
  { description: "One-off: starts_at and ends_at. Recurring: rrule or cron with duration_minutes; starts_at/ends_at then bound the recurrence." },
);

export const WindowPatchBody = Obj(
  Object.fromEntries(Object.entries(WindowCreateBody.properties).map(([k, v]) => [k, k === "name" ? t.Optional(fields.name) : v])) as typeof WindowCreateBody.properties,
);

export const WindowListQuery = Obj({
  ...PaginationQuery,
  state: t.Optional(
    t.Union([t.Literal("active"), t.Literal("upcoming"), t.Literal("ended")], {
      description: "active: in an occurrence now; upcoming: not now but has a later occurrence; ended: no occurrence left",
    }),
  ),
});

export const WindowView = t.Object(
  {
    id: t.String(),
    name: t.String(),
    description: t.String(),
    kind: t.Union([t.Literal("once"), t.Literal("rrule"), t.Literal("cron")]),
    starts_at: Nullable(t.String()),
    ends_at: Nullable(t.String()),
    rrule: Nullable(t.String()),
    cron: Nullable(t.String()),
    duration_minutes: Nullable(Int()),
    timezone: t.String(),
    monitor_ids: t.Array(t.String()),
    tags: t.Array(t.String()),
    pause_monitors: t.Boolean(),
    suppress_alerts: t.Boolean(),
    key: t.Union([t.String(), t.Null()], { description: "The config file's stable key (watchpost CLI); null when none" }),
    state: t.Union([t.Literal("active"), t.Literal("upcoming"), t.Literal("ended")]),
    current_ends_at: Nullable(t.String({ description: "End of the occurrence in progress (active windows)" })),
    next_starts_at: Nullable(t.String({ description: "Start of the next occurrence (upcoming windows)" })),
    created_at: t.String(),
    updated_at: t.String(),
  },
  { title: "MaintenanceWindow" },
);
