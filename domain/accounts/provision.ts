import { hashToken } from "../../core/crypto/secrets.ts";
import { isUniqueViolation, type Sql, withTx } from "../../db/client.ts";
import { conflict, validationError } from "../../core/errors.ts";
import { newId, randomToken } from "../../core/ids.ts";
import { insertApiKey } from "../../db/queries/api-keys.ts";
import { planExists } from "../../db/queries/plans.ts";
import { findUserByEmail, insertUser } from "../../db/queries/users.ts";
import { API_KEY_PREFIX } from "./api-keys.ts";
import { createOrgWithOwner } from "./orgs.ts";
import { hashPassword, verifyPassword } from "./passwords.ts";

export interface Provisioned {
  org_id: string;
  user_id: string;
  api_key: string;
}

/**
 * Creates an organisation with its owner (an existing user when the email and password match)
 * and an org:admin API key. Used by `bun run cli org:create` and by test fixtures. A new owner is named
 * `userName`, else after the part of the email before @ (never after the organisation).
 */
export async function provisionOrg(sql: Sql, input: { name: string; email: string; password: string; planId?: string; userName?: string }): Promise<Provisioned> {
  const planId = input.planId ?? "free";
  if (!(await planExists(sql, planId))) throw validationError([{ path: "plan", message: `Unknown plan ${planId}` }]);
  const passwordHash = await hashPassword(input.password);
  try {
    return await withTx(sql, async (tx) => {
      const existing = await findUserByEmail(tx, input.email);
      if (existing && !(await verifyPassword(input.password, existing.password_hash))) throw conflict("A user with this email exists and the password does not match");
      const user = existing ?? (await insertUser(tx, { id: newId("usr"), email: input.email, name: input.userName?.trim() || defaultUserName(input.email), passwordHash }));
      const org = await createOrgWithOwner(tx, { name: input.name, userId: user.id, planId, isDefault: !existing });
      const key = `${API_KEY_PREFIX}_live_${randomToken(30)}`;
      await insertApiKey(tx, {
        id: newId("key"),
        orgId: org.id,
        createdBy: user.id,
        name: "provisioned",
        displayPrefix: key.slice(0, 12),
        keyHash: hashToken(key),
        scopes: ["org:admin"],
        expiresAt: null,
      });
      return { org_id: org.id, user_id: user.id, api_key: key };
    });
  } catch (err) {
    if (isUniqueViolation(err, "users_email_key")) throw conflict("A user with this email already exists");
    throw err;
  }
}

/** `ops.lead@acme.test` → `ops.lead`: a display name for an owner made without one. */
const defaultUserName = (email: string) => email.trim().split("@")[0] || email.trim();
