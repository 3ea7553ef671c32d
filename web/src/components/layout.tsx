import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useState, type ReactNode } from "react";
import { api, data } from "../api/client";
import { useLiveEvents } from "../lib/live";
import { Link, useRouter } from "../lib/router";
import { useSession } from "../lib/session";
import { AppBanners } from "./billing-banner";

const NAV = [
  ["/monitors", "Monitors"],
  ["/groups", "Groups"],
  ["/maintenance", "Maintenance"],
  ["/alerts", "Alerts"],
  ["/alert-rules", "Alert rules"],
  ["/alert-channels", "Channels"],
  ["/status-pages", "Status pages"],
  ["/incidents", "Incidents"],
  ["/runners", "Runners"],
  ["/org", "Organisation"],
  ["/billing", "Billing"],
] as const;

export function Layout({ children }: { children: ReactNode }) {
  const session = useSession();
  const { path } = useRouter();
  const live = useLiveEvents(true, session.orgId);
  return (
    <div className="shell">
      <a className="skip" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <Link to="/monitors" className="brand">
          Watchpost
        </Link>
        <nav aria-label="Main">
          {NAV.map(([to, label]) => (
            <Link key={to} to={to} aria-current={path.startsWith(to) && (to !== "/alerts" || !path.startsWith("/alert-")) ? "page" : undefined}>
              {label}
            </Link>
          ))}
        </nav>
        <div className="topbar-end">
          <span className={`live ${live ? "on" : ""}`} role="status" aria-label={live ? "Live updates connected" : "Live updates reconnecting"} title={live ? "Live" : "Reconnecting"} />
          <OrgSwitcher />
          <Bell />
          <ThemeToggle />
          <Link to="/account" aria-current={path.startsWith("/account") ? "page" : undefined}>
            Account
          </Link>
          <button onClick={() => void session.signOut()}>Sign out</button>
        </div>
      </header>
      <AppBanners />
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

function Bell() {
  const qc = useQueryClient();
  const [open, setOpen] = useState(false);
  const count = useQuery({ queryKey: ["notifications", "count"], queryFn: () => api.GET("/api/v1/notifications/unread-count").then(data), refetchInterval: 60_000 });
  const list = useQuery({ queryKey: ["notifications", "list"], enabled: open, queryFn: () => api.GET("/api/v1/notifications", { params: { query: { limit: 20 } } }).then(data) });
  const readAll = useMutation({ mutationFn: () => api.POST("/api/v1/notifications/read-all"), onSettled: () => qc.invalidateQueries({ queryKey: ["notifications"] }) });
  const unread = Number(count.data?.unread ?? 0);
  return (
    <div className="bell">
      <button aria-label={`Notifications, ${unread} unread`} aria-expanded={open} onClick={() => setOpen(!open)}>
        <BellIcon />
        {unread > 0 && <span className="count" data-testid="unread-count">{unread}</span>}
      </button>
      {open && (
        <div className="popover" role="dialog" aria-label="Notifications" onKeyDown={(e) => e.key === "Escape" && setOpen(false)}>
          <button onClick={() => readAll.mutate()}>Mark all read</button>
          {list.data?.data.length === 0 && <p className="muted">Nothing yet.</p>}
          <ul>
            {list.data?.data.map((n) => (
              <li key={n.id} className={n.read ? "muted" : ""}>
                <strong>{n.title}</strong>
                <div>{n.body}</div>
              </li>
            ))}
          </ul>
        </div>
      )}
    </div>
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

function BellIcon() {
  return (
    <svg width="18" height="18" viewBox="0 0 24 24" aria-hidden="true" fill="none" stroke="currentColor" strokeWidth="2" strokeLinecap="round" strokeLinejoin="round">
      <path d="M6 8a6 6 0 0 1 12 0c0 7 3 9 3 9H3s3-2 3-9" />
      <path d="M10.3 21a1.94 1.94 0 0 0 3.4 0" />
    </svg>
  );
}
