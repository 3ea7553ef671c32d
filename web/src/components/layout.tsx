import { useEffect, useState, type ReactNode } from "react";
import { useLiveEvents } from "../lib/live";
import { Link, useRouter } from "../lib/router";
import { useSession } from "../lib/session";
import { useMyRole } from "../screens/org/use-permissions";
import { AppBanners } from "./billing-banner";
import { OverloadBanner } from "./overload-banner";
import { NotificationBell } from "./notification-bell";
import { KeyboardShortcuts } from "./shortcuts";

const NAV = [
  ["/monitors", "Monitors"],
  ["/groups", "Groups"],
  ["/maintenance", "Maintenance"],
  ["/alerts", "Alerts"],
  ["/alert-rules", "Alert rules"],
  ["/alert-channels", "Channels"],
  ["/status-pages", "Status pages"],
  ["/incidents", "Incidents"],
  ["/reports", "Reports"],
  ["/runners", "Runners"],
  ["/org", "Organisation"],
  ["/billing", "Billing"],
] as const;

export function Layout({ children }: { children: ReactNode }) {
  const session = useSession();
  const { path } = useRouter();
  // The stream needs monitors:read; a custom role without it would be refused with 403 on every retry.
  const { can, loading } = useMyRole();
  const watches = !loading && can("monitors:read");
  const live = useLiveEvents(watches, session.orgId);
  // On narrow screens the navigation and the account links fold into a menu, closed on every navigation.
  const [menuOpen, setMenuOpen] = useState(false);
  useEffect(() => setMenuOpen(false), [path]);
  return (
    <div className="shell">
      <a className="skip" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <Link to="/monitors" className="brand">
          Watchpost
        </Link>
        <button type="button" className="menu-toggle" aria-expanded={menuOpen} aria-controls="main-menu" onClick={() => setMenuOpen(!menuOpen)}>
          <span aria-hidden="true">☰</span> Menu
        </button>
        <div id="main-menu" className={`menu ${menuOpen ? "open" : ""}`}>
          <nav aria-label="Main">
            {NAV.map(([to, label]) => (
              <Link key={to} to={to} aria-current={path.startsWith(to) && (to !== "/alerts" || !path.startsWith("/alert-")) ? "page" : undefined}>
                {label}
              </Link>
            ))}
          </nav>
          <div className="topbar-end">
            {watches && (
              <span
                className={`live ${live ? "on" : ""}`}
                role="status"
                aria-label={live ? "Live updates connected" : "Live updates reconnecting"}
                title={live ? "Live" : "Reconnecting"}
              />
            )}
            <OrgSwitcher />
            <NotificationBell />
            <ThemeToggle />
            {/* A server page (api/web/docs.ts), not a dashboard route: a full navigation. */}
            <a href="/docs">API reference</a>
            <Link to="/account" aria-current={path.startsWith("/account") ? "page" : undefined}>
              Account
            </Link>
            <button onClick={() => void session.signOut()}>Sign out</button>
          </div>
        </div>
      </header>
      <AppBanners />
      <OverloadBanner />
      <KeyboardShortcuts />
      <main id="main" tabIndex={-1}>
        {children}
      </main>
    </div>
  );
}

function OrgSwitcher() {
  const { orgs, orgId, switchOrg } = useSession();
  if (orgs.length < 2) return <span className="org-name">{orgs[0]?.name}</span>;
  return (
    <select aria-label="Organisation" value={orgId ?? ""} onChange={(e) => switchOrg(e.target.value)}>
      {orgs.map((o) => (
        <option key={o.id} value={o.id}>
          {o.name}
        </option>
      ))}
    </select>
  );
}

function ThemeToggle() {
  const [theme, setTheme] = useState(() => localStorage.getItem("wp_theme") ?? (matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light"));
  useEffect(() => {
    document.documentElement.dataset.theme = theme;
    localStorage.setItem("wp_theme", theme);
  }, [theme]);
  return (
    <button aria-label={`Switch to ${theme === "dark" ? "light" : "dark"} theme`} onClick={() => setTheme(theme === "dark" ? "light" : "dark")}>
      {theme === "dark" ? "☀" : "☾"}
    </button>
  );
}
