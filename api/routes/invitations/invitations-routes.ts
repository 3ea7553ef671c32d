import { Elysia, t } from "elysia";
import { acceptInvitation, myInvitations } from "../../../domain/accounts/invitations.ts";
import type { ApiDeps } from "../../context.ts";
import { authPlugin } from "../../middleware/auth.ts";
import { Id, Obj, PaginationQuery, paginated } from "../../schemas/common.ts";
import { pageOf } from "../../schemas/page-of.ts";
import { InvitationView, toInvitationView } from "../org/views.ts";

/** The invitee's side: see invitations sent to your email and accept one. */
export const myInvitationRoutes = (deps: ApiDeps) =>
  new Elysia({ prefix: "/invitations", detail: { tags: ["organisation"] } })
    .use(authPlugin)
    .guard({ requires: "user" }, (app) =>
      app
        .get(
          "",
          async ({ actor, query }) => pageOf((await myInvitations(deps.sql, actor.userId)).map((i) => ({ ...toInvitationView(i), org_name: i.org_name })), query),
          {
            query: Obj(PaginationQuery),
            response: { 200: paginated(t.Composite([InvitationView, t.Object({ org_name: t.String() })])) },
            detail: { summary: "Pending invitations addressed to your email, once a mailed token proved that address (empty until then)" },
          },
        )
        .post("/accept", async ({ actor, body }) => toInvitationView(await acceptInvitation(deps.sql, actor.userId, body)), {
          body: Obj({ token: t.Optional(t.String({ minLength: 10, maxLength: 200 })), invitation_id: t.Optional(Id) }),
          response: { 200: InvitationView },
          detail: { summary: "Join an organisation with the emailed token, or by id when it was sent to your email and a mailed token already proved that address (else 403 email_unverified)" },
        }),
    );
