import { Elysia, t } from "elysia";
import { cancelInvitation, inviteMember, listInvitations } from "../../../domain/accounts/invitations.ts";
import type { ApiDeps } from "../../context.ts";
import { authPlugin } from "../../middleware/auth.ts";
import { Email } from "../auth/schemas.ts";
import { Id, IdParams, Obj, PaginationQuery, paginated, toPage } from "../../schemas/common.ts";
import { InvitationView, toInvitationView } from "./views.ts";

/** Invitations sent by the active organisation (admins). The accept side is /invitations. */
export const invitationRoutes = (deps: ApiDeps) =>
  new Elysia({ prefix: "/invitations" })
    .use(authPlugin)
    .guard({ requires: "org:admin" }, (app) =>
      app
        .post(
          "",
          async ({ actor, body, set }) => {
            const base = deps.publicBaseUrl;
            const { invitation, token, acceptUrl } = await inviteMember({ sql: deps.sql, actor }, deps.box, base, body);
            set.status = 201;
            return { ...toInvitationView(invitation), token, accept_url: acceptUrl };
          },
          {
            body: Obj({ email: Email, role_id: Id }),
            response: {
              201: t.Composite([
                InvitationView,
                t.Object({
                  token: t.String({ description: "Shown once; also emailed" }),
                  accept_url: t.String({ description: "The emailed link (the dashboard's accept page with the token), shown once: to pass on when the mail does not arrive (no SMTP server configured)" }),
                }),
              ]),
            },
            detail: { summary: "Invite someone by email (valid 7 days)" },
          },
        )
        .get(
          "",
          async ({ actor, query }) => {
            const { rows, total } = await listInvitations({ sql: deps.sql, actor }, query.limit, (query.page - 1) * query.limit);
            return toPage(rows.map(toInvitationView), total, query.page, query.limit);
          },
          { query: Obj(PaginationQuery), response: { 200: paginated(InvitationView) }, detail: { summary: "Pending invitations" } },
        )
        .delete(
          "/:id",
          async ({ actor, params, set }) => {
            await cancelInvitation({ sql: deps.sql, actor }, params.id);
            set.status = 204;
          },
          { params: IdParams, detail: { summary: "Revoke a pending invitation" } },
        ),
    );
