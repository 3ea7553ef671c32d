import { t } from "elysia";
import { Obj, PaginationQuery, Timestamp, DisplayName, Int } from "../../schemas/common.ts";

const Name = DisplayName(200, { description: "Display name" });
const LocationLabel = t.String({ minLength: 1, maxLength: 200, description: "Where the runner runs, free text (e.g. \"Berlin office rack 2\")" });

export const RunnerCreateBody = Obj({ name: Name, location_label: t.Optional(t.Union([LocationLabel, t.Null()])) });
export const RunnerPatchBody = Obj({ name: t.Optional(Name), location_label: t.Optional(t.Union([LocationLabel, t.Null()])) });
export const RunnerListQuery = Obj(PaginationQuery);

const Nullable = <T extends Parameters<typeof t.Union>[0][number]>(s: T) => t.Union([s, t.Null()]);

const viewFields = {
  id: t.String(),
  name: t.String(),
  location_label: Nullable(t.String()),
  status: t.Union([t.Literal("online"), t.Literal("offline"), t.Literal("revoked")], { description: "offline = no heartbeat within 3 × the runner's heartbeat interval" }),
  suspended: t.Boolean({ description: "Over the plan's runner quota: keeps its token, receives no jobs" }),
  last_seen_at: Nullable(Timestamp),
  last_check_at: Nullable(Timestamp),
  stopped_at: Nullable(
    t.String({
      format: "date-time",
      description: "When the runner ended its session on a graceful stop (SIGTERM, SIGINT): offline from then on, whatever its last heartbeat; null once it connects again",
    }),
  ),
  created_at: Timestamp,
  revoked_at: Nullable(Timestamp),
};

/** What the runner last reported, on list rows and the status. */
const reportedFields = {
  ...viewFields,
  reported_name: Nullable(t.String({ description: "RUNNER_NAME as the runner reports it" })),
  region: Nullable(t.String({ description: "RUNNER_REGION as the runner reports it" })),
  version: Nullable(t.String({ description: "The runner's version as it reports it" })),
  in_flight: Int({ description: "Checks it held at its last heartbeat; 0 once it stopped" }),
};

export const RunnerView = t.Object(viewFields, { title: "Runner" });
export const RunnerListItem = t.Object(reportedFields, { title: "RunnerListItem" });
export const RunnerCreated = t.Object({ ...viewFields, token: t.String({ description: "rt_… runner token; shown once, stored hashed" }) }, { title: "RunnerCreated" });
export const RunnerStatusView = t.Object(
  {
    ...reportedFields,
    capabilities: t.Object({ browsers: t.Array(t.String()), concurrency: Nullable(Int()) }),
    heartbeat_interval_ms: Nullable(Int()),
    offline_after_ms: Int(),
    encrypted: Nullable(t.Boolean({ description: "Whether the runner's current session encrypts payloads" })),
    overloaded: t.Boolean({
      description: "More checks are due on the runner than it runs: the scheduler keeps due checks back until it takes them, so every monitor is still checked, less often (docs/runners.md, Capacity)",
    }),
    overloaded_since: Nullable(t.String({ format: "date-time", description: "When the current overload began; null while the runner keeps up" })),
    schedule_lag_seconds: t.Number({ minimum: 0, description: "How long the oldest due check kept back for the runner has waited; 0 while it keeps up" }),
  },
  { title: "RunnerStatus" },
);

export const RunnerSetupView = t.Object(
  {
    api_url: t.String({ description: "SERVICE_API_URL for runners: this deployment's PUBLIC_BASE_URL (runners refuse it unless it is https)" }),
    image_registry: t.String({ description: "RUNNER_IMAGE_REGISTRY: images are <image_registry>/runner-<variant>:latest" }),
    variants: t.Array(t.Object({ id: t.String(), browsers: t.String({ description: "The BROWSERS value the variant runs with" }) }), { description: "Image variants, standard first" }),
  },
  { title: "RunnerSetup" },
);
