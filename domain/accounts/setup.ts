import { isUniqueViolation, type Sql, withTx } from "../../db/client.ts";
import { conflict } from "../../core/errors.ts";
import { newId } from "../../core/ids.ts";
import { anyOrgExists } from "../../db/queries/orgs.ts";
import { insertUser, type UserRow } from "../../db/queries/users.ts";
import { createOrgWithOwner } from "./orgs.ts";
import { hashPassword } from "./passwords.ts";

const alreadySetUp = () => conflict("This installation is already set up: sign in instead", { reason: "already_set_up" });

/** True while no organisation exists: a fresh installation whose first visitor may create the owner. */
export const setupNeeded = async (sql: Sql): Promise<boolean> => !(await anyOrgExists(sql));

/**
 * Creates the first user and organisation, only while no organisation exists. Concurrent calls
 * queue on one transaction-scoped advisory lock, so the second sees the first's organisation.
 */
export async function setUpFirstOwner(
  sql: Sql,
  input: { email: string; password: string; name: string; org_name: string },
): Promise<{ user: UserRow; orgId: string }> {
  if (await anyOrgExists(sql)) throw alreadySetUp();
  const passwordHash = await hashPassword(input.password);
  try {
    return await withTx(sql, async (tx) => {
      await tx`select pg_advisory_xact_lock(hashtext('first_run_setup'))`;
      if (await anyOrgExists(tx)) throw alreadySetUp();
      const user = await insertUser(tx, { id: newId("usr"), email: input.email.trim(), name: input.name, passwordHash });
      const org = await createOrgWithOwner(tx, { name: input.org_name, userId: user.id, isDefault: true });
      return { user, orgId: org.id };
    });
  } catch (err) {
    if (isUniqueViolation(err, "users_email_key")) throw conflict("An account with this email already exists");
    throw err;
  }
}
