import type { Actor } from "../access/actor.ts";
import { can, lacking } from "../access/identity.ts";
import { hashToken } from "../crypto/secrets.ts";
import type { Sql } from "../db/client.ts";
import { notFound, permissionDenied, validationError } from "../errors.ts";
import { newId, randomToken } from "../ids.ts";
import { type ApiKeyRow, findLiveApiKey, insertApiKey, listApiKeys, revokeApiKey } from "../../db/queries/api-keys.ts";

export const API_KEY_PREFIX = "wp";

interface Ctx {
  sql: Sql;
  actor: Actor;
}

/** Mints `wp_live_<random>`; only its SHA-256 is stored, the key itself is returned once. */
export async function createApiKey(
  { sql, actor }: Ctx,
  input: { name: string; scopes: string[]; expires_at?: string },
): Promise<{ row: ApiKeyRow; key: string }> {
  // A key born expired would be shown once and never work: the caller surely meant another date.
  if (input.expires_at && Date.parse(input.expires_at) <= Date.now()) throw validationError([{ path: "body.expires_at", message: "Must be in the future" }]);
  // A key minting a key is bounded by its own scopes as well as its creator's role.
  const excess = lacking(actor.identity, input.scopes);
  if (excess.length > 0) throw permissionDenied("A key cannot carry scopes beyond your own", { scopes: excess });
  const key = `${API_KEY_PREFIX}_live_${randomToken(30)}`;
  const row = await insertApiKey(sql, {
    id: newId("key"),
    orgId: actor.orgId,
    createdBy: actor.userId,
    name: input.name,
    displayPrefix: key.slice(0, 12),
    keyHash: hashToken(key),
    scopes: [...new Set(input.scopes)],
    expiresAt: input.expires_at ? new Date(input.expires_at) : null,
  });
  return { row, key };
}

export const listOrgApiKeys = ({ sql, actor }: Ctx, limit: number, offset: number) => listApiKeys(sql, actor.orgId, limit, offset);

/** Members revoke their own keys; revoking someone else's takes org:admin. */
export async function deleteApiKey({ sql, actor }: Ctx, id: string): Promise<void> {
  const key = await findLiveApiKey(sql, actor.orgId, id);
  if (!key) throw notFound("API key");
  if (key.created_by !== actor.userId && !can(actor.identity, "org:admin")) throw permissionDenied("Requires the org:admin permission to revoke another member's key", { permission: "org:admin" });
  if (!(await revokeApiKey(sql, actor.orgId, id))) throw notFound("API key");
}
