import { t } from "elysia";
import { DisplayName, Id, Int, Obj, PaginationQuery, TIME_OF_DAY } from "../../schemas/common.ts";

const Nullable = <S extends Parameters<typeof t.Union>[0][number]>(s: S) => t.Union([s, t.Null()]);

const Recipient = t.Union(
  [
    Obj({ type: t.Literal("member"), user_id: Id }, { description: "A member of the organisation; mail goes to their account's address" }),
    Obj({ type: t.Literal("email"), email: t.String({ format: "email", minLength: 3, maxLength: 254, description: "Any address, e.g. a team list" }) }),
  ],
  { description: "Who receives the report" },
);

const fields = {
  name: DisplayName(200),
  scope: t.Union([t.Literal("org"), t.Literal("status_page")], { description: "org: every monitor and incident of the organisation; status_page: those one status page shows" }),
  status_page_id: Nullable(Id),
  frequency: t.Union([t.Literal("weekly"), t.Literal("monthly")], { description: "weekly: covers the 7 days before the send day; monthly: the previous calendar month" }),
  day: Int({ minimum: 1, maximum: 28, description: "weekly: ISO weekday, 1 (Monday) to 7 (Sunday); monthly: day of the month, 1 to 28" }),
  send_time: t.String({ pattern: TIME_OF_DAY, description: "Local time of day to send, HH:MM (24 h), in `timezone`" }),
  timezone: t.String({ minLength: 1, maxLength: 64, description: "IANA time zone of the schedule and of the report's days, e.g. Europe/Berlin" }),
  recipients: t.Array(Recipient, { minItems: 1, maxItems: 50 }),
  enabled: t.Boolean({ description: "false: no scheduled sends (send-now still works)" }),
};

export const ReportCreateBody = Obj({
  name: fields.name,
  scope: fields.scope,
  status_page_id: t.Optional(fields.status_page_id),
  frequency: fields.frequency,
  day: fields.day,
  send_time: fields.send_time,
  timezone: fields.timezone,
  recipients: fields.recipients,
  enabled: t.Optional(fields.enabled),
});

export const ReportPatchBody = Obj(
  {
    name: t.Optional(fields.name),
    scope: t.Optional(fields.scope),
    status_page_id: t.Optional(fields.status_page_id),
    frequency: t.Optional(fields.frequency),
    day: t.Optional(fields.day),
    send_time: t.Optional(fields.send_time),
    timezone: t.Optional(fields.timezone),
    recipients: t.Optional(fields.recipients),
    enabled: t.Optional(fields.enabled),
  },
  { description: "The fields to change; an empty body changes nothing" },
);

export const ReportListQuery = Obj({ ...PaginationQuery });

export const ReportSendBody = Obj({
  to: t.Optional(t.Union([t.Literal("me"), t.Literal("recipients")], { description: "me (default): a preview to the caller's own address; recipients: to every subscribed recipient" })),
});

const RecipientView = t.Object({
  type: t.Union([t.Literal("member"), t.Literal("email")]),
  user_id: Nullable(t.String()),
  email: Nullable(t.String({ description: "The address mail goes to; null for a member who left the organisation" })),
  unsubscribed: t.Boolean({ description: "The address unsubscribed with the link in a report; naming it again after removing it subscribes it again" }),
});

export const ReportView = t.Object(
  {
    id: t.String(),
    name: t.String(),
    scope: fields.scope,
    status_page_id: Nullable(t.String()),
    frequency: fields.frequency,
    day: Int(),
    send_time: t.String(),
    timezone: t.String(),
    recipients: t.Array(RecipientView),
    enabled: t.Boolean(),
    next_send_at: t.String({ description: "The next scheduled send" }),
    last_sent_at: Nullable(t.String()),
    created_at: t.String(),
    updated_at: t.String(),
  },
  { title: "Report" },
);

export const ReportSendResult = t.Object({
  queued: Int({ description: "Messages queued in the mail outbox" }),
  period_start: t.String(),
  period_end: t.String({ description: "Exclusive" }),
});
