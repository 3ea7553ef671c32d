import type { Actor } from "../access/actor.ts";
import { isUniqueViolation, type Sql, withTx } from "../../db/client.ts";
import { lacking } from "../access/identity.ts";
import { conflict, notFound, permissionDenied } from "../../core/errors.ts";
import { newId } from "../../core/ids.ts";
import { deleteRole, findRole, insertRole, listRoles, roleInUse, updateRole, type RoleRow } from "../../db/queries/roles.ts";

interface Ctx {
  sql: Sql;
  actor: Actor;
}

export const listOrgRoles = ({ sql, actor }: Ctx) => listRoles(sql, actor.orgId);

export async function getRole({ sql, actor }: Ctx, id: string): Promise<RoleRow> {
  const role = await findRole(sql, actor.orgId, id);
  if (!role) throw notFound("Role");
  return role;
}

/** A role can only be given, or changed to, permissions the caller holds (an admin cannot mint an owner). */
function assertWithinOwn(actor: Actor, permissions: readonly string[]): void {
  const excess = lacking(actor.identity, permissions);
  if (excess.length > 0) throw permissionDenied("A role cannot carry permissions beyond your own", { permissions: excess });
}

const duplicateName = (err: unknown) => {
  if (isUniqueViolation(err, "roles_org_name_key")) return conflict("A role with this name already exists");
  return err;
};

export async function createRole({ sql, actor }: Ctx, input: { name: string; description?: string; permissions: string[] }) {
  assertWithinOwn(actor, input.permissions);
  try {
    return await insertRole(sql, { id: newId("role"), orgId: actor.orgId, name: input.name, description: input.description ?? "", permissions: [...new Set(input.permissions)] });
  } catch (err) {
    throw duplicateName(err);
  }
}

export async function patchRole({ sql, actor }: Ctx, id: string, input: { name?: string; description?: string; permissions?: string[] }) {
  const role = await getRole({ sql, actor }, id);
  if (role.org_id === null) throw conflict("System roles cannot be changed");
  assertWithinOwn(actor, [...role.permissions, ...(input.permissions ?? [])]);
  try {
    return (await updateRole(sql, actor.orgId, id, { ...input, permissions: input.permissions && [...new Set(input.permissions)] }))!;
  } catch (err) {
    throw duplicateName(err);
  }
}

export async function removeRole({ sql, actor }: Ctx, id: string): Promise<void> {
  const role = await getRole({ sql, actor }, id);
  if (role.org_id === null) throw conflict("System roles cannot be deleted");
  // As for changing it: no one takes away (or deletes) a role holding more than they have.
  assertWithinOwn(actor, role.permissions);
  await withTx(sql, async (tx) => {
    if (await roleInUse(tx, id)) throw conflict("The role is assigned to members or pending invitations, or given by single sign-on");
    await deleteRole(tx, actor.orgId, id);
  });
}
