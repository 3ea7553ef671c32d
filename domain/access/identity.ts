import { grants, keyGrants, PERMISSIONS, type Permission } from "../../schemas/access/permissions.ts";

/** Who is calling, resolved once per request at the edge. */
export type Identity =
  | {
      kind: "session";
      userId: string;
      email: string;
      sessionId: string;
      csrfToken: string;
      totpEnabled: boolean;
      orgId: string | null;
      roleId: string | null;
      rolePermissions: string[];
      orgRequires2fa: boolean;
      /** A single sign-on session acts in this organisation only (docs/sso.md); null for a password session. */
      orgScope: string | null;
      /** A password session acting in an organisation that requires single sign-on (not as its owner): its SSO name. */
      ssoRequiredSlug: string | null;
    }
  | {
      kind: "api_key";
      keyId: string;
      userId: string;
      orgId: string;
      roleId: string;
      rolePermissions: string[];
      scopes: string[];
    };

export function can(identity: Identity, needed: Permission): boolean {
  if (identity.kind === "api_key") return keyGrants(identity.scopes, identity.rolePermissions, needed);
  return identity.orgId !== null && grants(identity.rolePermissions, needed);
}

/** What of `list` the caller does not hold themselves: no one hands out (or takes away) more than they have. */
export function lacking(identity: Identity, list: readonly string[]): string[] {
  const known = PERMISSIONS as readonly string[];
  return [...new Set(list)].filter((p) => !known.includes(p) || !can(identity, p as Permission));
}

export function actorLabel(identity: Identity): string {
  return identity.kind === "api_key" ? `api_key:${identity.keyId}` : `user:${identity.email}`;
}
