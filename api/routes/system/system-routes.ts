import { Elysia, t } from "elysia";
import type { ApiDeps } from "../../context.ts";

/**
 * Liveness and readiness: outside /api/v1 and never rate limited. Metrics are not here: they are
 * served on METRICS_PORT (api/server.ts), a listener the public proxy never reaches.
 */
export const systemRoutes = (deps: ApiDeps) =>
  new Elysia({ detail: { tags: ["system"] } })
    .get("/healthz", () => ({ status: "ok" as const }), {
      response: { 200: t.Object({ status: t.Literal("ok") }) },
      detail: { summary: "The process is alive", security: [] },
    })
    .get(
      "/readyz",
      async ({ set }) => {
        const ready = await deps.isReady();
        if (!ready) set.status = 503;
        return { status: ready ? ("ready" as const) : ("unavailable" as const) };
      },
      {
        response: { 200: t.Object({ status: t.Literal("ready") }), 503: t.Object({ status: t.Literal("unavailable") }) },
        detail: { summary: "The database is reachable and migrations are applied", security: [] },
      },
    );
