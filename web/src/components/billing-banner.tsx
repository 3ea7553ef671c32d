import { useQuery } from "@tanstack/react-query";
import { api, data } from "../api/client";
import { Link } from "../lib/router";
import { useSession } from "../lib/session";
import { fmtDate } from "./part2-format";
import "./part2-ui.css";

/** Whether the active organisation's policy blocks this user until they turn 2FA on. */
export function useTwoFactorBlock(): boolean {
  const { user, orgId } = useSession();
  const orgs = useQuery({ queryKey: ["orgs", "policy"], queryFn: () => api.GET("/api/v1/orgs").then(data), staleTime: 30_000 });
  const org = orgs.data?.data.find((o) => o.id === orgId);
  return Boolean(org?.two_factor_required && user && !user.two_factor_enabled);
}

/**
 * Banners shown on every screen: the organisation requires 2FA the user has not set up, or the
 * last payment failed and the subscription is in its grace period (everything keeps working until then).
 */
export function AppBanners() {
  const blocked = useTwoFactorBlock();
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
        <Link to="/billing">Update payment details</Link>
      </div>
    );
  return null;
}
