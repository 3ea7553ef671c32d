import { t } from "elysia";
import { Int } from "../schemas/common.ts";

/** What GET /status/{slug}/index.json answers (domain/status-pages/public-model.ts `PublicPage`), for the OpenAPI document. */
const ComponentStatus = t.Union(["operational", "degraded", "partial_outage", "major_outage", "maintenance", "unknown"].map((s) => t.Literal(s)));
const Time = t.String({ format: "date-time" });
const Pct = t.Union([t.Number({ minimum: 0, maximum: 100 }), t.Null()]);

const PublicIncident = t.Object(
  {
    id: t.String(),
    title: t.String(),
    impact: t.Union(["none", "minor", "major", "critical"].map((s) => t.Literal(s))),
    status: t.Union(["investigating", "identified", "monitoring", "resolved"].map((s) => t.Literal(s))),
    components: t.Array(t.String()),
    created_at: Time,
    updated_at: Time,
    resolved_at: t.Union([Time, t.Null()]),
    updates: t.Array(t.Object({ status: t.String(), message: t.String(), created_at: Time }, { additionalProperties: false })),
  },
  { additionalProperties: false },
);

export const PublicStatusPage = t.Object(
  {
    page: t.Object({ id: t.String(), name: t.String(), slug: t.String(), description: t.String(), updated_at: Time }, { additionalProperties: false }),
    status: t.Object({ indicator: ComponentStatus, description: t.String() }, { additionalProperties: false }),
    sections: t.Array(
      t.Object(
        {
          name: t.String(),
          components: t.Array(
            t.Object(
              {
                id: t.String(),
                name: t.String(),
                description: t.String(),
                status: ComponentStatus,
                uptime_90d_pct: Pct,
                bars: t.Array(t.Object({ date: t.String({ format: "date" }), uptime_pct: Pct, checks: Int({ minimum: 0 }), failed: Int({ minimum: 0 }) }, { additionalProperties: false })),
              },
              { additionalProperties: false },
            ),
          ),
        },
        { additionalProperties: false },
      ),
    ),
    incidents: t.Object({ active: t.Array(PublicIncident), recent: t.Array(PublicIncident) }, { additionalProperties: false }),
    maintenance: t.Array(
      t.Object(
        { id: t.String(), name: t.String(), description: t.String(), state: t.Union([t.Literal("active"), t.Literal("upcoming")]), starts_at: t.Union([Time, t.Null()]), ends_at: t.Union([Time, t.Null()]) },
        { additionalProperties: false },
      ),
    ),
    generated_at: Time,
  },
  { additionalProperties: false, title: "PublicStatusPage" },
);
