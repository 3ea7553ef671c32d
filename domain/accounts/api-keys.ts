import type { Actor } from "../access/actor.ts";
import { can, lacking } from "../access/identity.ts";
import { SCOPES } from "../../schemas/access/permissions.ts";
import { hashToken } from "../../core/crypto/secrets.ts";
import { type Sql, withTx } from "../../db/client.ts";
import { notFound, permissionDenied, validationError } from "../../core/errors.ts";
import { newId, randomToken } from "../../core/ids.ts";
import { type ApiKeyRow, findLiveApiKey, insertApiKey, type KeyVisibility, listApiKeys, revokeApiKeyTree } from "../../db/queries/api-keys.ts";

export const API_KEY_PREFIX = "wp";

interface Ctx {
  sql: Sql;
  actor: Actor;
}

/**
 * Every route here needs `api_keys:write` (the route guard); on top of that a caller only ever
 * touches keys within its own scopes, and only its own user's keys unless it holds org:admin.
 */
const visibility = (actor: Actor): KeyVisibility => ({
  within: SCOPES.filter((s) => can(actor.identity, s)),
  createdBy: can(actor.identity, "org:admin") ? null : actor.userId,
});

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
  let expiresAt = input.expires_at ? new Date(input.expires_at) : null;
  const parentId = actor.identity.kind === "api_key" ? actor.identity.keyId : null;
  if (parentId) {
    // A key made by a key falls with it: revoked with it (created_by_key) and never expiring later.
    const parent = await findLiveApiKey(sql, actor.orgId, parentId);
    if (!parent) throw notFound("API key");
    if (parent.expires_at && (!expiresAt || expiresAt > parent.expires_at)) expiresAt = parent.expires_at;
  }
  const key = `${API_KEY_PREFIX}_live_${randomToken(30)}`;
  const row = await insertApiKey(sql, {
    id: newId("key"),
    orgId: actor.orgId,
    createdBy: actor.userId,
    createdByKey: parentId,
    name: input.name,
    displayPrefix: key.slice(0, 12),
    keyHash: hashToken(key),
    scopes: [...new Set(input.scopes)],
    expiresAt,
  });
  return { row, key };
}

/** The live keys the caller may manage: within its own scopes; another member's only with org:admin. */
export const listOrgApiKeys = ({ sql, actor }: Ctx, limit: number, offset: number) => listApiKeys(sql, actor.orgId, visibility(actor), limit, offset);

/** Revokes a key and every key it made (transitively); never a key with scopes beyond the caller's. */
export async function deleteApiKey({ sql, actor }: Ctx, id: string): Promise<void> {
  await withTx(sql, async (tx) => {
    const key = await findLiveApiKey(tx, actor.orgId, id);
    if (!key) throw notFound("API key");
    const excess = lacking(actor.identity, key.scopes);
    if (excess.length > 0) throw permissionDenied("You cannot revoke a key with scopes beyond your own", { scopes: excess });
    if (key.created_by !== actor.userId && !can(actor.identity, "org:admin")) {
      throw permissionDenied("Requires the org:admin permission to revoke another member's key", { permission: "org:admin" });
    }
    if ((await revokeApiKeyTree(tx, actor.orgId, id)) === 0) throw notFound("API key");
  });
}
