import { Elysia, t } from "elysia";
import type { Metrics } from "../../../core/metrics.ts";
import type { ApiDeps } from "../../context.ts";

/** Liveness, readiness, metrics: outside /api/v1 and never rate limited. */
export const systemRoutes = (deps: ApiDeps, metrics: Metrics) =>
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
    )
    .get("/metrics", async () => new Response(await metrics.registry.metrics(), { headers: { "content-type": metrics.registry.contentType } }), {
      detail: { hide: true },
    });
