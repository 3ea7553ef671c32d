import { t } from "elysia";
import type { MemberRow } from "../../../db/queries/members.ts";
import type { OrgRow, SecurityPolicyRow } from "../../../db/queries/orgs.ts";
import type { RoleRow } from "../../../db/queries/roles.ts";
import type { InvitationRow } from "../../../db/queries/invitations.ts";
import { PERMISSIONS } from "../../../schemas/access/permissions.ts";
import { Timestamp } from "../../schemas/common.ts";

export const PermissionName = t.Union(PERMISSIONS.map((p) => t.Literal(p)));

export const OrgView = t.Object({ id: t.String(), name: t.String(), plan: t.String(), created_at: Timestamp, updated_at: Timestamp });
export const toOrgView = (o: OrgRow) => ({ id: o.id, name: o.name, plan: o.plan_id, created_at: o.created_at.toISOString(), updated_at: o.updated_at.toISOString() });

export const MemberView = t.Object({ user_id: t.String(), email: t.String(), name: t.String(), role_id: t.String(), two_factor_enabled: t.Boolean(), joined_at: Timestamp });
export const toMemberView = (m: MemberRow) => ({
  user_id: m.user_id,
  email: m.email,
  name: m.name,
  role_id: m.role_id,
  two_factor_enabled: m.totp_enabled,
  joined_at: m.created_at.toISOString(),
});

export const RoleView = t.Object({
  id: t.String(),
  name: t.String(),
  description: t.String(),
  system: t.Boolean(),
  permissions: t.Array(t.String()),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export const toRoleView = (r: RoleRow) => ({
  id: r.id,
  name: r.name,
  description: r.description,
  system: r.org_id === null,
  permissions: r.permissions,
  created_at: r.created_at.toISOString(),
  updated_at: r.updated_at.toISOString(),
});

export const PolicyView = t.Object({ require_2fa: t.Boolean(), updated_at: Timestamp });
export const toPolicyView = (p: SecurityPolicyRow) => ({ require_2fa: p.require_2fa, updated_at: p.updated_at.toISOString() });

export const InvitationView = t.Object({
  id: t.String(),
  org_id: t.String(),
  email: t.String(),
  role_id: t.String(),
  invited_by: t.Union([t.String(), t.Null()]),
  created_at: Timestamp,
  expires_at: Timestamp,
  accepted_at: t.Union([Timestamp, t.Null()]),
});
export const toInvitationView = (i: InvitationRow) => ({
  id: i.id,
  org_id: i.org_id,
  email: i.email,
  role_id: i.role_id,
  invited_by: i.invited_by,
  created_at: i.created_at.toISOString(),
  expires_at: i.expires_at.toISOString(),
  accepted_at: i.accepted_at?.toISOString() ?? null,
});
