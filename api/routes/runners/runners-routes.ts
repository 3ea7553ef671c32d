import { Elysia } from "elysia";
import type { Actor } from "../../../domain/access/actor.ts";
import { createRunner, getRunner, getRunnerStatus, listRunners, patchRunner, revokeRunner, toRunnerView } from "../../../domain/runners/service.ts";
import type { ApiDeps } from "../../context.ts";
import { authPlugin } from "../../middleware/auth.ts";
import { IdParams, paginated, toPage } from "../../schemas/common.ts";
import { RunnerCreateBody, RunnerCreated, RunnerListItem, RunnerListQuery, RunnerPatchBody, RunnerSetupView, RunnerStatusView, RunnerView } from "./schemas.ts";

/** The spec's image variants and the BROWSERS value each runs with. */
const RUNNER_VARIANTS = [
  { id: "standard", browsers: "none" },
  { id: "chromium", browsers: "chromium" },
  { id: "firefox", browsers: "firefox" },
  { id: "webkit", browsers: "webkit" },
  { id: "full", browsers: "all" },
];

/** Self-hosted runners: create (quota runners, one-time token), list, status, rename, revoke. */
export const runnerRoutes = (deps: ApiDeps) => {
  const ctx = (actor: Actor) => ({ sql: deps.sql, actor });
  return new Elysia({ prefix: "/runners", detail: { tags: ["runners"] } })
    .use(authPlugin)
    .guard({ requires: "runners:read" }, (app) =>
      app
        .get(
          "",
          async ({ actor, query }) => {
            const { rows, total } = await listRunners(ctx(actor), query.limit, (query.page - 1) * query.limit);
            return toPage(rows, total, query.page, query.limit);
          },
          { query: RunnerListQuery, response: { 200: paginated(RunnerListItem) }, detail: { summary: "List runners, newest first (revoked ones included, status revoked), with what each last reported" } },
        )
        .get("/setup", () => ({ api_url: deps.publicBaseUrl, image_registry: deps.config.RUNNER_IMAGE_REGISTRY, variants: RUNNER_VARIANTS }), {
          response: { 200: RunnerSetupView },
          detail: { summary: "What a runner's docker run line needs: the API URL, the image registry and the image variants (docs/runners.md)" },
        })
        .get("/:id", async ({ actor, params }) => toRunnerView(await getRunner(ctx(actor), params.id)), {
          params: IdParams,
          response: { 200: RunnerView },
          detail: { summary: "One runner" },
        })
        .get("/:id/status", async ({ actor, params }) => getRunnerStatus(ctx(actor), params.id), {
          params: IdParams,
          response: { 200: RunnerStatusView },
          detail: { summary: "Online/offline/revoked, last-seen and last-check times, version and capabilities the runner reports" },
        }),
    )
    .guard({ requires: "runners:write" }, (app) =>
      app
        .post(
          "",
          async ({ actor, body, set }) => {
            set.status = 201;
            return createRunner(ctx(actor), body);
          },
          {
            body: RunnerCreateBody,
            response: { 201: RunnerCreated },
            detail: { summary: "Create a runner: { name, location_label? } → the runner with its one-time `token` (rt_…); quota runners (Free 0)" },
          },
        )
        .patch("/:id", ({ actor, params, body }) => patchRunner(ctx(actor), params.id, body), {
          params: IdParams,
          body: RunnerPatchBody,
          response: { 200: RunnerView },
          detail: { summary: "Rename or relabel a runner" },
        })
        .delete(
          "/:id",
          async ({ actor, params, set }) => {
            await revokeRunner(ctx(actor), deps.bus, deps.log, params.id);
            set.status = 204;
          },
          { params: IdParams, detail: { summary: "Revoke: the token stops working at once and the runner's queued jobs are dropped" } },
        ),
    );
};
