import { useQuery } from "@tanstack/react-query";
import { api, data } from "../../api/client";
import { useSession } from "../../lib/session";

/** Permissions only a role's own list grants; org:admin implies every other one (schemas/access/permissions.ts). */
const NOT_IMPLIED_BY_ADMIN = new Set(["billing:manage", "org:owner"]);

export const roleGrants = (permissions: readonly string[], needed: string) =>
  permissions.includes(needed) || (!NOT_IMPLIED_BY_ADMIN.has(needed) && permissions.includes("org:admin"));

/** The roles someone holding `mine` may hand out: those whose every permission `mine` grants (as the API requires). */
export const assignableRoles = <R extends { permissions: readonly string[] }>(roles: readonly R[], mine: readonly string[]): R[] =>
  roles.filter((r) => r.permissions.every((p) => roleGrants(mine, p)));

/** The signed-in user's role in the active organisation, to hide what the API would refuse. */
export function useMyRole() {
  const { orgs, orgId } = useSession();
  const roleId = orgs.find((o) => o.id === orgId)?.role ?? null;
  const roles = useQuery({ queryKey: ["org", "roles"], queryFn: () => api.GET("/api/v1/org/roles", { params: { query: { limit: 100 } } }).then(data) });
  const role = roles.data?.data.find((r) => r.id === roleId) ?? null;
  const permissions = role?.permissions ?? [];
  return {
    roleId,
    role,
    loading: roles.isPending,
    can: (p: string) => roleGrants(permissions, p),
    /** Whether every permission of a role is one the caller holds (only such a role can be given or taken away). */
    covers: (list: readonly string[]) => list.every((p) => roleGrants(permissions, p)),
    /** The roles the caller may hand out (role selects list only these; the API refuses the rest). */
    assignable: <R extends { permissions: readonly string[] }>(list: readonly R[]) => assignableRoles(list, permissions),
  };
}
