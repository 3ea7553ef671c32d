import type { ReactNode } from "react";
import { Layout } from "./components/layout";
import { Loading } from "./components/ui";
import { match, useRouter } from "./lib/router";
import { useSession } from "./lib/session";
import { ActiveAlerts, AlertHistory } from "./screens/alerts/active-alerts";
import { AlertChannels } from "./screens/alerts/alert-channels";
import { AlertRules } from "./screens/alerts/alert-rules";
import { PasswordReset, SignIn, SignUp } from "./screens/auth/auth-forms";
import { Groups } from "./screens/monitors/groups";
import { MaintenanceWindows } from "./screens/monitors/maintenance";
import { MonitorDetail } from "./screens/monitors/monitor-detail";
import { MonitorEdit, MonitorForm } from "./screens/monitors/monitor-form";
import { MonitorsOverview } from "./screens/monitors/overview";
import { accountScreens } from "./screens/account/routes";
import { billingScreens } from "./screens/billing/routes";
import { orgScreens } from "./screens/org/routes";
import { runnerScreens } from "./screens/runners/routes";
import { statusPageScreens } from "./screens/status-pages/routes";

const PUBLIC: Partial<Record<string, () => ReactNode>> = { "/signin": SignIn, "/signup": SignUp, "/password-reset": PasswordReset };

/** Signed-in screens, first match wins (`/monitors/new` before `/monitors/:id`). */
const SCREENS: [string, (p: Record<string, string>) => ReactNode][] = [
  ["/monitors", () => <MonitorsOverview />],
  ["/monitors/new", () => <MonitorForm />],
  ["/monitors/:id/edit", (p) => <MonitorEdit id={p.id!} />],
  ["/monitors/:id", (p) => <MonitorDetail key={p.id} id={p.id!} />],
  ["/groups", () => <Groups />],
  ["/maintenance", () => <MaintenanceWindows />],
  ["/alerts", () => <ActiveAlerts />],
  ["/alerts/history", () => <AlertHistory />],
  ["/alert-rules", () => <AlertRules />],
  ["/alert-channels", () => <AlertChannels />],
  ...statusPageScreens,
  ...runnerScreens,
  ...billingScreens,
  ...orgScreens,
  ...accountScreens,
];

export function App() {
  const session = useSession();
  const { path, navigate } = useRouter();
  if (session.loading) return <Loading what="Watchpost" />;
  const Public = PUBLIC[path];
  if (!session.user) {
    if (Public) return <Public />;
    queueMicrotask(() => navigate("/signin"));
    return null;
  }
  if (Public || path === "/") {
    queueMicrotask(() => navigate("/monitors"));
    return null;
  }
  for (const [pattern, render] of SCREENS) {
    const params = match(pattern, path);
    // Keyed by organisation: switching remounts every screen, so nothing shows the old one's data.
    if (params) return <Layout key={session.orgId}>{render(params)}</Layout>;
  }
  return (
    <Layout>
      <h1>Not found</h1>
      <p>There is no page at {path}.</p>
    </Layout>
  );
}
