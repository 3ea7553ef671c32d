import { Elysia, t } from "elysia";
import { planIdInForce } from "../../../billing/self-hosted.ts";
import { permissionDenied } from "../../../core/errors.ts";
import { signupOpen } from "../../config.ts";
import { createOrgWithOwner, listMyOrgs } from "../../../domain/accounts/orgs.ts";
import type { Identity } from "../../../domain/access/identity.ts";
import type { ApiDeps } from "../../context.ts";
import { authPlugin } from "../../middleware/auth.ts";
import { Obj, Timestamp, DisplayName, PaginationQuery, paginated } from "../../schemas/common.ts";
import { pageOf } from "../../schemas/page-of.ts";

const MyOrgView = t.Object({
  id: t.String(),
  name: t.String(),
  plan: t.String(),
  role: t.String(),
  default: t.Boolean(),
  two_factor_required: t.Boolean({ description: "The organisation's security policy requires 2FA: without it, its routes answer 403 (details.reason two_factor_required)" }),
  single_sign_on: t.Boolean({ description: "The organisation has single sign-on: link your account to it with POST /auth/sso/link (docs/sso.md)" }),
  created_at: Timestamp,
});

/** A single sign-on session sees only the organisation whose provider signed it in. */
const inScope = (identity: Identity, orgId: string) => identity.kind !== "session" || !identity.orgScope || identity.orgScope === orgId;

/** The organisations the signed-in user belongs to; creating one makes them its owner. */
export const orgsRoutes = (deps: ApiDeps) =>
  new Elysia({ prefix: "/orgs", detail: { tags: ["organisations"] } })
    .use(authPlugin)
    .guard({ requires: "user" }, (app) =>
      app
        .get(
          "",
          async ({ actor, query }) => {
            const plan = (stored: string) => planIdInForce(deps.sql, stored);
            return pageOf(
              await Promise.all((await listMyOrgs(deps.sql, actor.userId)).filter((o) => inScope(actor.identity, o.id)).map(async (o) => ({
              id: o.id,
              name: o.name,
              plan: await plan(o.plan_id),
              role: o.role_id,
              default: o.is_default,
              two_factor_required: o.require_2fa,
              single_sign_on: o.sso,
              created_at: o.created_at.toISOString(),
              }))),
              query,
            );
          },
          { query: Obj(PaginationQuery), response: { 200: paginated(MyOrgView) }, detail: { summary: "Organisations you are a member of (select one with X-Org-Id)" } },
        )
        .post(
          "",
          async ({ actor, body, set }) => {
            // Where sign-up is closed (self-hosted), organisations come from the first-run setup, `bun run cli
            // org:create`, and people who already own one (the installation's owners, who may keep teams apart): an
            // invited (or removed) person must not make one of their own on the unlimited plan, whose checks may
            // reach the private network.
            if (actor.identity.kind === "session" && actor.identity.orgScope) {
              throw permissionDenied("A session opened by single sign-on acts in its organisation only; sign in with your password to create one", { reason: "sso_session" });
            }
            if (!signupOpen(deps.config) && !(await listMyOrgs(deps.sql, actor.userId)).some((o) => o.role_id === "owner")) {
              throw permissionDenied("This installation does not let accounts create organisations; use `bun run cli org:create` on the server", { reason: "signup_closed" });
            }
            const org = await createOrgWithOwner(deps.sql, { name: body.name, userId: actor.userId });
            set.status = 201;
            return { id: org.id, name: org.name, plan: await planIdInForce(deps.sql, org.plan_id), role: "owner", default: false, two_factor_required: false, single_sign_on: false, created_at: org.created_at.toISOString() };
          },
          { body: Obj({ name: DisplayName(120) }), response: { 201: MyOrgView }, detail: { summary: "Create an organisation you own" } },
        ),
    );
