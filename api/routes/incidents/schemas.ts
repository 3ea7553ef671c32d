import { t } from "elysia";
import { Id, Obj, PaginationQuery, Timestamp, DisplayName } from "../../schemas/common.ts";

const Impact = t.Union([t.Literal("none"), t.Literal("minor"), t.Literal("major"), t.Literal("critical")]);
const Status = t.Union([t.Literal("investigating"), t.Literal("identified"), t.Literal("monitoring"), t.Literal("resolved")]);
const Message = t.String({ minLength: 1, maxLength: 5000 });

export const IncidentCreateBody = Obj({
  title: DisplayName(200),
  impact: Impact,
  status: t.Optional(Status),
  message: Message,
  component_ids: t.Optional(t.Array(Id, { maxItems: 200, description: "Affected status-page components; their pages show the incident" })),
  page_ids: t.Optional(t.Array(Id, { maxItems: 50, description: "Further pages to show the incident on" })),
});

export const IncidentPatchBody = Obj({
  title: t.Optional(DisplayName(200)),
  impact: t.Optional(Impact),
  component_ids: t.Optional(t.Array(Id, { maxItems: 200 })),
  page_ids: t.Optional(t.Array(Id, { maxItems: 50 })),
});

export const UpdateBody = Obj({ message: Message, status: t.Optional(Status), impact: t.Optional(Impact) });
// An object, possibly empty: an optional root body is not validated by Elysia at all (42 or "x" were accepted).
export const ResolveBody = Obj({ message: t.Optional(Message) });

export const IncidentListQuery = Obj({
  ...PaginationQuery,
  status: t.Optional(t.Union([Status, t.Literal("active")], { description: "One status, or active (not resolved)" })),
  page_id: t.Optional(Id),
});

export const IncidentView = t.Object(
  {
    id: t.String(),
    title: t.String(),
    impact: Impact,
    status: Status,
    component_ids: t.Array(t.String()),
    page_ids: t.Array(t.String(), { description: "The pages named on their own (as sent)" }),
    shown_page_ids: t.Array(t.String(), { description: "Every page the incident shows on: those named and those holding one of its components" }),
    resolved_at: t.Union([Timestamp, t.Null()]),
    created_at: Timestamp,
    updated_at: Timestamp,
    updates: t.Array(t.Object({ id: t.String(), status: Status, message: t.String(), created_at: Timestamp }), { description: "Timeline, newest first" }),
  },
  { title: "Incident" },
);
