import { Elysia } from "elysia";
import type { Actor } from "../../../domain/access/actor.ts";
import { removeCustomDomain, setCustomDomain, verifyCustomDomain } from "../../../domain/status-pages/domain.ts";
import { createPage, getPage, listOrgPages, loadLayout, patchPage, putLayout, removePage } from "../../../domain/status-pages/service.ts";
import { addSubscriber, listPageSubscribers, removeSubscriber } from "../../../domain/status-pages/subscribers.ts";
import { customDomainsAllowed } from "../../../billing/suspension.ts";
import type { StatusPageRow } from "../../../db/queries/status-pages.ts";
import type { ApiDeps } from "../../context.ts";
import { authPlugin } from "../../middleware/auth.ts";
import { IdParams, paginated, toPage } from "../../schemas/common.ts";
import { DomainBody, LayoutBody, LayoutView, ListQuery, PageCreateBody, PagePatchBody, PageView, SubParams, SubscriberBody, SubscriberCreatedView, SubscriberView } from "./schemas.ts";
import { toLayoutView, toPageView, toSubscriberView } from "./views.ts";

/** Status pages: CRUD, layout (sections and components, replaced whole), custom domain, subscribers. */
export const statusPageRoutes = (deps: ApiDeps) => {
  const ctx = (actor: Actor) => ({ sql: deps.sql, actor });
  // publicBaseUrl is known only once the server listens: read it per request.
  const mail = () => ({ sql: deps.sql, box: deps.box, baseUrl: deps.publicBaseUrl, log: deps.log });
  const view = async (p: StatusPageRow) => toPageView(p, await loadLayout(deps.sql, p.id), deps.publicBaseUrl, await customDomainsAllowed(deps.sql, p.org_id));
  return new Elysia({ prefix: "/status-pages", detail: { tags: ["status-pages"] } })
    .use(authPlugin)
    .guard({ requires: "status_pages:read" }, (app) =>
      app
        .get(
          "",
          async ({ actor, query }) => {
            const { rows, total } = await listOrgPages(ctx(actor), query.limit, (query.page - 1) * query.limit);
            return toPage(await Promise.all(rows.map(view)), total, query.page, query.limit);
          },
          { query: ListQuery, response: { 200: paginated(PageView) }, detail: { summary: "List status pages, newest first" } },
        )
        .get("/:id", async ({ actor, params }) => view(await getPage(ctx(actor), params.id)), {
          params: IdParams,
          response: { 200: PageView },
          detail: { summary: "One status page with its layout and custom-domain state" },
        })
        .get("/:id/layout", async ({ actor, params }) => (await getPage(ctx(actor), params.id), toLayoutView(await loadLayout(deps.sql, params.id))), {
          params: IdParams,
          response: { 200: LayoutView },
          detail: { summary: "Sections and components in display order" },
        })
        .get(
          "/:id/subscribers",
          async ({ actor, params, query }) => {
            const { rows, total } = await listPageSubscribers(ctx(actor), params.id, query.limit, (query.page - 1) * query.limit);
            return toPage(rows.map((r) => toSubscriberView(r, deps.box)), total, query.page, query.limit);
          },
          { params: IdParams, query: ListQuery, response: { 200: paginated(SubscriberView) }, detail: { summary: "Subscribers of a page, newest first" } },
        ),
    )
    .guard({ requires: "status_pages:write" }, (app) =>
      app
        .post(
          "",
          async ({ actor, body, set }) => {
            set.status = 201;
            return view(await createPage(ctx(actor), body));
          },
          { body: PageCreateBody, response: { 201: PageView }, detail: { summary: "Create a status page (counts toward the status_pages quota); 409 when the slug is taken" } },
        )
        .patch("/:id", async ({ actor, params, body }) => view(await patchPage(ctx(actor), params.id, body)), {
          params: IdParams,
          body: PagePatchBody,
          response: { 200: PageView },
          detail: { summary: "Change a status page; 409 when the new slug is taken" },
        })
        .delete(
          "/:id",
          async ({ actor, params, set }) => {
            await removePage(ctx(actor), params.id);
            set.status = 204;
          },
          { params: IdParams, detail: { summary: "Delete a status page with its layout and subscribers" } },
        )
        .put("/:id/layout", async ({ actor, params, body }) => toLayoutView(await putLayout(ctx(actor), params.id, body)), {
          params: IdParams,
          body: LayoutBody,
          response: { 200: LayoutView },
          detail: { summary: "Replace the page's sections and components (order = array order); each component shows one monitor or a tag group" },
        })
        .post("/:id/domain", async ({ actor, params, body }) => view(await setCustomDomain(ctx(actor), params.id, body.domain)), {
          params: IdParams,
          body: DomainBody,
          response: { 200: PageView },
          detail: { summary: "Set the custom domain; returns the TXT record to publish (custom_domain.txt_record). Not on the Free plan." },
        })
        .post("/:id/domain/verify", async ({ actor, params }) => view(await verifyCustomDomain(ctx(actor), params.id)), {
          params: IdParams,
          response: { 200: PageView },
          detail: { summary: "Look up the TXT record; 409 CONFLICT with what was found when it does not match" },
        })
        .delete("/:id/domain", async ({ actor, params }) => view(await removeCustomDomain(ctx(actor), params.id)), {
          params: IdParams,
          response: { 200: PageView },
          detail: { summary: "Remove the custom domain" },
        })
        .post(
          "/:id/subscribers",
          async ({ actor, params, body, set }) => {
            set.status = 201;
            const { row, webhookSecret } = await addSubscriber(ctx(actor), mail(), params.id, body);
            return { ...toSubscriberView(row, deps.box), webhook_secret: webhookSecret };
          },
          {
            params: IdParams,
            body: SubscriberBody,
            response: { 201: SubscriberCreatedView },
            detail: { summary: "Add an email (double opt-in: confirmation email) or webhook subscriber (its signing secret is in this answer only)" },
          },
        )
        .delete(
          "/:id/subscribers/:subscriberId",
          async ({ actor, params, set }) => {
            await removeSubscriber(ctx(actor), params.id, params.subscriberId);
            set.status = 204;
          },
          { params: SubParams, detail: { summary: "Remove a subscriber" } },
        ),
    );
};
