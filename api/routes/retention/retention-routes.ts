import { Elysia, t } from "elysia";
import { getOrgRetention } from "../../../domain/results/monitor-results.ts";
import type { ApiDeps } from "../../context.ts";
import { authPlugin } from "../../middleware/auth.ts";
import { Int } from "../../schemas/common.ts";

const RetentionView = t.Object({
  retention_days: Int({ description: "Days of check results the plan keeps" }),
  oldest_kept: t.String({ format: "date-time", description: "Start of the UTC day retention_days before now: results due earlier are deleted (hourly)" }),
});

/** The organisation's effective retention window for check results. */
export const retentionRoutes = (deps: ApiDeps) =>
  new Elysia({ prefix: "/retention", detail: { tags: ["monitors"] } }).use(authPlugin).get(
    "",
    async ({ actor }) => {
      const r = await getOrgRetention({ sql: deps.sql, actor });
      return { retention_days: r.retention_days, oldest_kept: r.oldest_kept.toISOString() };
    },
    {
      requires: "monitors:read",
      response: { 200: RetentionView },
      detail: { summary: "How long check results are kept (the plan's retention) and the oldest instant still kept" },
    },
  );
