import { Elysia } from "elysia";
import { createChannel, getChannel, listChannels, patchChannel, previewMessage, removeChannel, testChannel } from "../../../alerting/service/alert-channels.ts";
import type { Actor } from "../../../domain/access/actor.ts";
import { findOrg } from "../../../db/queries/orgs.ts";
import type { ApiDeps } from "../../context.ts";
import { authPlugin } from "../../middleware/auth.ts";
import { IdParams, paginated, toPage } from "../../schemas/common.ts";
import { ChannelCreateBody, ChannelListQuery, ChannelPatchBody, ChannelView, MessagePreview, MessagePreviewBody, TestSendResult } from "./schemas.ts";

/** Alert channels: CRUD with secrets encrypted at rest and masked on read, and test-send. */
export const alertChannelRoutes = (deps: ApiDeps) => {
  const ctx = (actor: Actor) => ({ sql: deps.sql, actor, box: deps.box });
  return new Elysia({ prefix: "/alert-channels", detail: { tags: ["alerting"] } })
    .use(authPlugin)
    .guard({ requires: "alerts:read" }, (app) =>
      app
        .get(
          "",
          async ({ actor, query }) => {
            const { rows, total } = await listChannels(ctx(actor), query.limit, (query.page - 1) * query.limit);
            return toPage(rows, total, query.page, query.limit);
          },
          { query: ChannelListQuery, response: { 200: paginated(ChannelView) }, detail: { summary: "List alert channels, newest first" } },
        )
        .post("/preview", ({ body }) => previewMessage(body, deps.publicBaseUrl), {
          body: MessagePreviewBody,
          response: { 200: MessagePreview },
          detail: {
            summary: "Render a message template with a sample alert, as a channel of the type would send it",
            description: "Sends nothing. Refuses what saving would refuse: unknown variables and syntax errors are 400 VALIDATION_ERROR with details naming each (path body.template.title or body.template.body, and the position).",
          },
        })
        .get("/:id", ({ actor, params }) => getChannel(ctx(actor), params.id), {
          params: IdParams,
          response: { 200: ChannelView },
          detail: { summary: "One alert channel (secrets masked)" },
        }),
    )
    .guard({ requires: "alerts:write" }, (app) =>
      app
        .post(
          "",
          async ({ actor, body, set }) => {
            set.status = 201;
            return createChannel(ctx(actor), body);
          },
          { body: ChannelCreateBody, response: { 201: ChannelView }, detail: { summary: "Create an alert channel (quota: alert_channels)" } },
        )
        .patch("/:id", ({ actor, params, body }) => patchChannel(ctx(actor), params.id, body), {
          params: IdParams,
          body: ChannelPatchBody,
          response: { 200: ChannelView },
          detail: { summary: "Change an alert channel; masked secrets sent back unchanged are kept" },
        })
        .delete(
          "/:id",
          async ({ actor, params, set }) => {
            await removeChannel(ctx(actor), params.id);
            set.status = 204;
          },
          { params: IdParams, detail: { summary: "Delete an alert channel (409 while a rule or escalation policy uses it)" } },
        )
        .post(
          "/:id/test",
          async ({ actor, params }) => testChannel({ ...ctx(actor), bus: deps.bus, orgName: (await findOrg(deps.sql, actor.orgId))?.name ?? "" }, params.id),
          { params: IdParams, response: { 200: TestSendResult }, detail: {
              summary: "Send a test notification now and return every delivery attempt",
              description: "The alerting role sends it, as it sends every notification. With no alerting process connected, or none answering within 30 s, the answer is 503 SERVICE_UNAVAILABLE with details.reason no_alerting or timeout.",
            } },
        ),
    );
};
