import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { api, data } from "../api/client";
import { Link, useRouter } from "../lib/router";
import { useSession } from "../lib/session";
import { useMyRole } from "../screens/org/use-permissions";
import { fmtDate } from "./format";
import { ErrorMessage } from "./ui";
import "./widgets.css";

/** sessionStorage key of an invitation token opened before signing in. */
export const INVITE_KEY = "wp_invite";
/** sessionStorage key of the address that invitation was sent to (its link carries it), to fill in the sign-up form. */
export const INVITE_EMAIL_KEY = "wp_invite_email";

/** Whether the active organisation's policy blocks this user until they turn 2FA on. */
function useTwoFactorBlock(): boolean {
  const { user, orgId } = useSession();
  const orgs = useQuery({ queryKey: ["orgs", "policy"], queryFn: () => api.GET("/api/v1/orgs", { params: { query: { limit: 100 } } }).then(data), staleTime: 30_000 });
  const org = orgs.data?.data.find((o) => o.id === orgId);
  return Boolean(org?.two_factor_required && user && !user.two_factor_enabled);
}

/**
 * Banners shown on every screen: the organisation requires 2FA the user has not set up, or the
 * last payment failed and the subscription is in its grace period (everything keeps working until then).
 */
export function AppBanners() {
  return (
    <>
      <PaymentAndPolicyBanner />
      <PendingInvitationsBanner />
    </>
  );
}

function PaymentAndPolicyBanner() {
  const blocked = useTwoFactorBlock();
  const { can } = useMyRole();
  const sub = useQuery({
    queryKey: ["billing", "subscription"],
    enabled: !blocked,
    queryFn: () => api.GET("/api/v1/billing/subscription").then(data),
    staleTime: 30_000,
    refetchInterval: 120_000,
  });
  if (blocked)
    return (
      <div className="banner banner-danger" role="alert" data-testid="two-factor-banner">
        <strong>This organisation requires two-factor authentication.</strong>
        <span>Turn it on for your account to keep using it.</span>
        <Link to="/account/security">Set up two-factor authentication</Link>
      </div>
    );
  const banner = sub.data?.banner;
  if (banner?.kind === "payment_failed")
    return (
      <div className="banner banner-warning" role="alert" data-testid="grace-banner">
        <strong>Your last payment failed.</strong>
        <span>Everything keeps working until {fmtDate(banner.grace_ends_at)}; after that unpaid items are cancelled and a paid plan drops to Free.</span>
        {/* Straight to paying, as the billing screen's notice does; owners only, like every billing action. */}
        {can("billing:manage") && (banner.invoice_url ?? banner.payment_url) && (
          <a href={(banner.invoice_url ?? banner.payment_url)!} data-testid="grace-pay">
            {banner.invoice_url ? "Pay the open invoice" : "Update payment method and pay"}
          </a>
        )}
        <Link to="/billing">Billing details</Link>
      </div>
    );
  return null;
}

/** Invitations waiting for the signed-in user (sent to their address, or opened from a link before signing in). */
function PendingInvitationsBanner() {
  const qc = useQueryClient();
  const session = useSession();
  const { navigate, path } = useRouter();
  const mine = useQuery({ queryKey: ["my-invitations"], queryFn: () => api.GET("/api/v1/invitations", { params: { query: { limit: 100 } } }).then(data), staleTime: 60_000 });
  const accept = useMutation({
    mutationFn: (invitation_id: string) => api.POST("/api/v1/invitations/accept", { body: { invitation_id } }).then(data),
    onSuccess: async (inv) => {
      sessionStorage.removeItem(INVITE_KEY);
      await qc.invalidateQueries({ queryKey: ["my-invitations"] });
      await qc.invalidateQueries({ queryKey: ["session"] });
      session.switchOrg(inv.org_id);
      navigate("/monitors");
    },
  });
  const held = sessionStorage.getItem(INVITE_KEY);
  const list = (mine.data?.data ?? []).filter((i) => !i.accepted_at);
  if (path === "/invitations/accept") return null;
  if (list.length === 0 && !held) return null;
  return (
    <div className="banner banner-warning" role="region" aria-label="Invitations" data-testid="invitation-banner">
      {list.map((i) => (
        <span key={i.id} className="row" style={{ margin: 0 }}>
          <span>
            You are invited to join <strong>{i.org_name}</strong> as {i.role_id}.
          </span>
          <button className="primary" onClick={() => accept.mutate(i.id)} disabled={accept.isPending} aria-label={`Accept the invitation to ${i.org_name}`}>
            Accept
          </button>
        </span>
      ))}
      {list.length === 0 && held && <Link to={`/invitations/accept?token=${encodeURIComponent(held)}`}>Accept the invitation you opened</Link>}
      <ErrorMessage error={accept.error} />
    </div>
  );
}
