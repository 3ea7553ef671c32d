import type { Actor } from "../access/actor.ts";
import { lacking } from "../access/identity.ts";
import { grants, keyGrants, type Permission } from "../../schemas/access/permissions.ts";
import { hashToken, type SecretBox } from "../../core/crypto/secrets.ts";
import { type Sql, withTx } from "../../db/client.ts";
import { conflict, notFound, permissionDenied, validationError } from "../../core/errors.ts";
import { newId, randomToken } from "../../core/ids.ts";
import { enqueueMail } from "../mail/enqueue.ts";
import {
  acceptInvitationById,
  acceptInvitationByToken,
  findInviterGrant,
  insertInvitation,
  type InvitationRow,
  listInvitationsForEmail,
  listOrgInvitations,
  pendingInvitationForEmail,
  revokeInvitation,
} from "../../db/queries/invitations.ts";
import { findMember, insertMembership } from "../../db/queries/members.ts";
import { findOrg } from "../../db/queries/orgs.ts";
import { findRole } from "../../db/queries/roles.ts";
import { findUserByEmail, findUserById, markEmailVerified } from "../../db/queries/users.ts";
import { assertQuota } from "../../billing/entitlements.ts";

const INVITATION_TTL_MS = 7 * 24 * 3600_000;

interface Ctx {
  sql: Sql;
  actor: Actor;
}

export async function inviteMember(
  { sql, actor }: Ctx,
  /** Seals the queued mail: it carries the invitation token. */
  box: SecretBox,
  baseUrl: string,
  input: { email: string; role_id: string },
): Promise<{ invitation: InvitationRow; token: string; acceptUrl: string }> {
  const role = await findRole(sql, actor.orgId, input.role_id);
  if (!role) throw validationError([{ path: "body.role_id", message: "Unknown role" }]);
  if (role.id === "owner" && !(actor.identity.kind === "session" && grants(actor.identity.rolePermissions, "org:owner"))) {
    throw permissionDenied("Only an owner can invite another owner", { reason: "owner_only" });
  }
  const excess = lacking(actor.identity, role.permissions);
  if (excess.length > 0) throw permissionDenied("You cannot invite someone to a role with permissions you do not hold", { permissions: excess });
  if (await pendingInvitationForEmail(sql, actor.orgId, input.email)) throw conflict("An invitation to this email is already pending");
  // An invitation to someone already in the organisation could never be accepted (409 there) and would hold a member slot.
  const invitee = await findUserByEmail(sql, input.email.trim());
  if (invitee && (await findMember(sql, actor.orgId, invitee.id))) throw conflict("This person is already a member; change their role under Members instead");
  await assertQuota(sql, actor.orgId, "members", 1);
  const token = randomToken(32);
  const org = await findOrg(sql, actor.orgId);
  // The emailed link, also answered once to the inviter: without SMTP (a self-hosted default) the mail only reaches the log.
  // The address rides along so the dashboard's sign-up form can fill it in (the account must use exactly it).
  const acceptUrl = `${baseUrl}/invitations/accept?token=${token}&email=${encodeURIComponent(input.email.trim())}`;
  // The invitation and its mail (sent by the alerting role from the outbox) are written together.
  return withTx(sql, async (tx) => {
    const invitation = await insertInvitation(tx, {
      id: newId("inv"),
      orgId: actor.orgId,
      email: input.email.trim(),
      roleId: role.id,
      tokenHash: hashToken(token),
      invitedBy: actor.userId,
      invitedByKey: actor.identity.kind === "api_key" ? actor.identity.keyId : null,
      expiresAt: new Date(Date.now() + INVITATION_TTL_MS),
    });
    await enqueueMail(
      tx,
      {
        kind: "invitation",
        orgId: actor.orgId,
        to: invitation.email,
        subject: `You are invited to ${org?.name ?? "an organisation"} on Watchpost`,
        text: `Accept within 7 days: ${acceptUrl}`,
      },
      box,
    );
    return { invitation, token, acceptUrl };
  });
}

export const listInvitations = ({ sql, actor }: Ctx, limit: number, offset: number) => listOrgInvitations(sql, actor.orgId, limit, offset);

export async function cancelInvitation({ sql, actor }: Ctx, id: string): Promise<void> {
  if (!(await revokeInvitation(sql, actor.orgId, id))) throw notFound("Invitation");
}

/**
 * An invitation grants no more than its sender may grant when it is accepted, as a key grants no
 * more than its creator's current role: a sender who left, was demoted below the role, or whose
 * key is revoked or expired, leaves the invitation void.
 */
async function senderMayStillGrant(tx: Sql, invitation: InvitationRow): Promise<boolean> {
  if (!invitation.invited_by) return false;
  const sender = await findInviterGrant(tx, invitation.org_id, invitation.invited_by, invitation.invited_by_key);
  const role = await findRole(tx, invitation.org_id, invitation.role_id);
  if (!sender || !role || (invitation.invited_by_key && !sender.key_scopes)) return false;
  return role.permissions.every(
    (p) => grants(sender.role_permissions, p as Permission) && (!sender.key_scopes || keyGrants(sender.key_scopes, sender.role_permissions, p as Permission)),
  );
}

/**
 * A new account's way in by an emailed invitation (sign-up with `invitation_token`, also where sign-up is closed):
 * the token must be pending, its sender still allowed to grant the role, and its address the account's, which the
 * mailed token then proves. The membership is the account's default organisation; it gets none of its own.
 */
export async function joinByInvitationToken(tx: Sql, user: { id: string; email: string }, token: string): Promise<InvitationRow> {
  const invitation = await acceptInvitationByToken(tx, hashToken(token));
  if (!invitation || !(await senderMayStillGrant(tx, invitation))) throw notFound("Invitation");
  if (invitation.email.toLowerCase() !== user.email.toLowerCase()) {
    throw permissionDenied("This invitation was sent to another address: sign up with the address it was sent to", { reason: "invitation_email_mismatch" });
  }
  await insertMembership(tx, { orgId: invitation.org_id, userId: user.id, roleId: invitation.role_id, isDefault: true });
  await markEmailVerified(tx, user.id, invitation.email);
  return invitation;
}

/** Invitations to the user's address, shown only once they proved it: anyone can sign up with any address. */
export async function myInvitations(sql: Sql, userId: string) {
  const user = await findUserById(sql, userId);
  return user?.email_verified_at ? listInvitationsForEmail(sql, user.email) : [];
}

/**
 * Accepts by token (from the email) or by id, the latter only for a user whose address a mailed
 * token already proved. A token for the user's own address proves it for next time.
 */
export async function acceptInvitation(sql: Sql, userId: string, input: { token?: string; invitation_id?: string }): Promise<InvitationRow> {
  return withTx(sql, async (tx) => {
    const user = await findUserById(tx, userId);
    if (!user) throw notFound("User");
    if (!input.token && input.invitation_id && !user.email_verified_at) {
      throw permissionDenied("Your email address is not verified: accept with the link in the invitation email", { reason: "email_unverified" });
    }
    const invitation = input.token
      ? await acceptInvitationByToken(tx, hashToken(input.token))
      : input.invitation_id
        ? await acceptInvitationById(tx, input.invitation_id, user.email)
        : undefined;
    if (!invitation || !(await senderMayStillGrant(tx, invitation))) throw notFound("Invitation");
    if (await findMember(tx, invitation.org_id, userId)) throw conflict("You are already a member of this organisation");
    await insertMembership(tx, { orgId: invitation.org_id, userId, roleId: invitation.role_id, isDefault: false });
    if (input.token) await markEmailVerified(tx, userId, invitation.email);
    return invitation;
  });
}
