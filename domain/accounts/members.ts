import type { Actor } from "../access/actor.ts";
import { lacking } from "../access/identity.ts";
import { grants } from "../../schemas/access/permissions.ts";
import { type Sql, withTx } from "../../db/client.ts";
import { conflict, notFound, permissionDenied, validationError } from "../../core/errors.ts";
import { countOwners, deleteMembership, findMember, listMembers, setMemberRole } from "../../db/queries/members.ts";
import { findRole } from "../../db/queries/roles.ts";

interface Ctx {
  sql: Sql;
  actor: Actor;
}

export const listOrgMembers = ({ sql, actor }: Ctx, limit: number, offset: number) => listMembers(sql, actor.orgId, limit, offset);

/** Only an owner may grant or take away the owner role; the last owner cannot be demoted. */
export async function changeMemberRole({ sql, actor }: Ctx, userId: string, roleId: string) {
  return withTx(sql, async (tx) => {
    const member = await findMember(tx, actor.orgId, userId);
    if (!member) throw notFound("Member");
    const role = await findRole(tx, actor.orgId, roleId);
    if (!role) throw validationError([{ path: "body.role_id", message: "Unknown role" }]);
    const actorIsOwner = grants(actor.identity.kind === "session" ? actor.identity.rolePermissions : [], "org:owner");
    if ((role.id === "owner" || member.role_id === "owner") && !actorIsOwner) throw permissionDenied("Only an owner can change ownership", { reason: "owner_only" });
    const current = await findRole(tx, actor.orgId, member.role_id);
    const excess = lacking(actor.identity, [...role.permissions, ...(current?.permissions ?? [])]);
    if (excess.length > 0) throw permissionDenied("You cannot grant or take away permissions you do not hold", { permissions: excess });
    if (member.role_id === "owner" && role.id !== "owner" && (await countOwners(tx, actor.orgId)) <= 1) {
      throw conflict("An organisation needs at least one owner");
    }
    await setMemberRole(tx, actor.orgId, userId, role.id);
    return (await findMember(tx, actor.orgId, userId))!;
  });
}

export async function removeMember({ sql, actor }: Ctx, userId: string): Promise<void> {
  await withTx(sql, async (tx) => {
    const member = await findMember(tx, actor.orgId, userId);
    if (!member) throw notFound("Member");
    const actorIsOwner = actor.identity.kind === "session" && grants(actor.identity.rolePermissions, "org:owner");
    if (member.role_id === "owner" && !actorIsOwner) throw permissionDenied("Only an owner can remove an owner", { reason: "owner_only" });
    const excess = lacking(actor.identity, (await findRole(tx, actor.orgId, member.role_id))?.permissions ?? []);
    if (excess.length > 0) throw permissionDenied("You cannot remove a member who holds permissions you do not", { permissions: excess });
    if (member.role_id === "owner" && (await countOwners(tx, actor.orgId)) <= 1) throw conflict("An organisation needs at least one owner");
    await deleteMembership(tx, actor.orgId, userId);
  });
}
