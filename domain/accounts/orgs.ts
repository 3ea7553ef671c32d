import type { Actor } from "../access/actor.ts";
import { type Sql, withTx } from "../../db/client.ts";
import { notFound } from "../../core/errors.ts";
import { newId } from "../../core/ids.ts";
import { findOrg, insertOrg, listUserOrgs, type MyOrgRow, type OrgRow, updateOrgName } from "../../db/queries/orgs.ts";
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
