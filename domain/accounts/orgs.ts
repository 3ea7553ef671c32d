import type { Actor } from "../access/actor.ts";
import { type Sql, withTx } from "../../db/client.ts";
import { notFound, permissionDenied } from "../../core/errors.ts";
import { newId } from "../../core/ids.ts";
import { findOrg, findSecurityPolicy, insertOrg, listUserOrgs, type MyOrgRow, type OrgRow, type SecurityPolicyRow, updateOrgName, updateSecurityPolicy } from "../../db/queries/orgs.ts";
import { insertMembership } from "../../db/queries/members.ts";

/** Creates an organisation with `userId` as its owner (used by sign-up, POST /orgs and the CLI). */
export async function createOrgWithOwner(sql: Sql, input: { name: string; userId: string; planId?: string; isDefault?: boolean }): Promise<OrgRow> {
  return withTx(sql, async (tx) => {
    const org = await insertOrg(tx, { id: newId("org"), name: input.name, planId: input.planId ?? "free" });
    await insertMembership(tx, { orgId: org.id, userId: input.userId, roleId: "owner", isDefault: input.isDefault ?? false });
    return org;
  });
}

export const listMyOrgs = (sql: Sql, userId: string): Promise<MyOrgRow[]> => listUserOrgs(sql, userId);

export async function getOrg({ sql, actor }: { sql: Sql; actor: Actor }): Promise<OrgRow> {
  const org = await findOrg(sql, actor.orgId);
  if (!org) throw notFound("Organisation");
  return org;
}

export async function updateOrg({ sql, actor, input }: { sql: Sql; actor: Actor; input: { name?: string } }): Promise<OrgRow> {
  const org = input.name === undefined ? await findOrg(sql, actor.orgId) : await updateOrgName(sql, actor.orgId, input.name);
  if (!org) throw notFound("Organisation");
  return org;
}

/**
 * Changes the organisation's 2FA policy. Turning it on would at once lock out every session without 2FA,
 * the caller's included, so only a signed-in user who has 2FA may do it; an API key has no second factor and
 * is refused too (docs/security.md#mandatory-two-factor-authentication). Turning it off, or asking for what is
 * already in force, is not refused.
 */
export async function setSecurityPolicy({ sql, actor }: { sql: Sql; actor: Actor }, require2fa: boolean): Promise<SecurityPolicyRow> {
  if (require2fa && !(await findSecurityPolicy(sql, actor.orgId)).require_2fa) {
    const { identity } = actor;
    if (identity.kind === "api_key") {
      throw permissionDenied("Requiring two-factor authentication needs a signed-in admin who has it; an API key has no second factor", { reason: "session_required" });
    }
    if (!identity.totpEnabled) {
      throw permissionDenied("Turn on two-factor authentication for your own account first: requiring it now would lock you out as well", { reason: "own_two_factor_required" });
    }
  }
  return updateSecurityPolicy(sql, actor.orgId, require2fa);
}
