import { Elysia, t } from "elysia";
import { changeMemberRole, listOrgMembers, removeMember } from "../../../domain/accounts/members.ts";
import { getOrg, setSecurityPolicy, updateOrg } from "../../../domain/accounts/orgs.ts";
import { createRole, getRole, listOrgRoles, patchRole, removeRole } from "../../../domain/accounts/roles.ts";
import { PERMISSIONS } from "../../../schemas/access/permissions.ts";
import { planIdInForce } from "../../../billing/self-hosted.ts";
import { findSecurityPolicy, type OrgRow } from "../../../db/queries/orgs.ts";
import type { ApiDeps } from "../../context.ts";
import { authPlugin } from "../../middleware/auth.ts";
import { Id, IdParams, Obj, PaginationQuery, paginated, toPage, DisplayName } from "../../schemas/common.ts";
import { pageOf } from "../../schemas/page-of.ts";
import { invitationRoutes } from "./invitations.ts";
import { ssoConfigRoutes } from "./sso.ts";
import { MemberView, OrgView, PermissionName, PolicyView, RoleView, toMemberView, toOrgView, toPolicyView, toRoleView } from "./views.ts";

/** The organisation with the plan in force (the self-hosted one when the deployment does not bill). */
const shownOrg = async (deps: ApiDeps, org: OrgRow) => ({ ...toOrgView(org), plan: await planIdInForce(deps.sql, org.plan_id) });

const RoleBody = {
  name: DisplayName(60),
  description: t.Optional(t.String({ maxLength: 300 })),
  permissions: t.Array(PermissionName, { maxItems: PERMISSIONS.length }),
};

/** The active organisation (X-Org-Id or the default one): settings, members, roles, security policy, invitations. */
export const orgRoutes = (deps: ApiDeps) =>
  new Elysia({ prefix: "/org", detail: { tags: ["organisation"] } })
    .use(authPlugin)
    .get("", async ({ actor }) => shownOrg(deps, await getOrg({ sql: deps.sql, actor })), {
      requires: "member",
      response: { 200: OrgView },
      detail: { summary: "The active organisation" },
    })
    .get(
      "/members",
      async ({ actor, query }) => {
        const { rows, total } = await listOrgMembers({ sql: deps.sql, actor }, query.limit, (query.page - 1) * query.limit);
        return toPage(rows.map(toMemberView), total, query.page, query.limit);
      },
      { requires: "member", query: Obj(PaginationQuery), response: { 200: paginated(MemberView) }, detail: { summary: "Members and their roles" } },
    )
    .get("/roles", async ({ actor, query }) => ({ ...pageOf((await listOrgRoles({ sql: deps.sql, actor })).map(toRoleView), query), permissions: [...PERMISSIONS] }), {
      requires: "member",
      query: Obj(PaginationQuery),
      response: {
        200: t.Composite([paginated(RoleView), t.Object({ permissions: t.Array(t.String(), { description: "Every permission a role can hold (the matrix columns)" }) })]),
      },
      detail: { summary: "System and custom roles with the permission matrix" },
    })
    .get("/roles/:id", async ({ actor, params }) => toRoleView(await getRole({ sql: deps.sql, actor }, params.id)), {
      requires: "member",
      params: IdParams,
      response: { 200: RoleView },
      detail: { summary: "One role" },
    })
    .get("/security-policy", async ({ actor }) => toPolicyView(await findSecurityPolicy(deps.sql, actor.orgId)), {
      requires: "member",
      response: { 200: PolicyView },
      detail: { summary: "Organisation-wide requirements" },
    })
    .guard({ requires: "org:admin" }, (app) =>
      app
        .patch("", async ({ actor, body }) => shownOrg(deps, await updateOrg({ sql: deps.sql, actor, input: body })), {
          body: Obj({ name: t.Optional(DisplayName(120)) }),
          response: { 200: OrgView },
          detail: { summary: "Rename the organisation" },
        })
        .patch("/members/:id", async ({ actor, params, body }) => toMemberView(await changeMemberRole({ sql: deps.sql, actor }, params.id, body.role_id)), {
          params: IdParams,
          body: Obj({ role_id: Id }),
          response: { 200: MemberView },
          detail: { summary: "Change a member's role (owner changes need an owner)" },
        })
        .delete(
          "/members/:id",
          async ({ actor, params, set }) => {
            await removeMember({ sql: deps.sql, actor }, params.id);
            set.status = 204;
          },
          { params: IdParams, detail: { summary: "Remove a member" } },
        )
        .post(
          "/roles",
          async ({ actor, body, set }) => {
            set.status = 201;
            return toRoleView(await createRole({ sql: deps.sql, actor }, body));
          },
          { body: Obj(RoleBody), response: { 201: RoleView }, detail: { summary: "Create a custom role" } },
        )
        .patch("/roles/:id", async ({ actor, params, body }) => toRoleView(await patchRole({ sql: deps.sql, actor }, params.id, body)), {
          params: IdParams,
          body: Obj({ name: t.Optional(RoleBody.name), description: RoleBody.description, permissions: t.Optional(RoleBody.permissions) }),
          response: { 200: RoleView },
          detail: { summary: "Change a custom role" },
        })
        .delete(
          "/roles/:id",
          async ({ actor, params, set }) => {
            await removeRole({ sql: deps.sql, actor }, params.id);
            set.status = 204;
          },
          { params: IdParams, detail: { summary: "Delete an unused custom role" } },
        )
        .patch("/security-policy", async ({ actor, body }) => toPolicyView(await setSecurityPolicy({ sql: deps.sql, actor }, body.require_2fa)), {
          body: Obj({ require_2fa: t.Boolean({ description: "Members must enable TOTP 2FA before using the organisation" }) }),
          response: { 200: PolicyView },
          detail: { summary: "Change organisation-wide requirements" },
        })
        .use(invitationRoutes(deps))
        .use(ssoConfigRoutes(deps)),
    );
