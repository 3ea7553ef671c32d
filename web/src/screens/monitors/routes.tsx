import { lazy, type ReactNode } from "react";
import { RequirePermission } from "../org/require-permission";
import { Groups } from "./groups";
import { MonitorsOverview } from "./overview";

// The overview is in the first bundle (it is the first screen); charts (uPlot) and the
// schema-driven forms (TypeBox, RRULE/cron) load when first opened.
const MonitorDetail = lazy(() => import("./monitor-detail").then((m) => ({ default: m.MonitorDetail })));
const MonitorForm = lazy(() => import("./monitor-form").then((m) => ({ default: m.MonitorForm })));
const MonitorEdit = lazy(() => import("./monitor-form").then((m) => ({ default: m.MonitorEdit })));
const MaintenanceWindows = lazy(() => import("./maintenance").then((m) => ({ default: m.MaintenanceWindows })));
const ResultPage = lazy(() => import("./detail/result-detail").then((m) => ({ default: m.ResultPage })));

/** First match wins: `/monitors/new` before `/monitors/:id`. */
export const monitorScreens: [string, (p: Record<string, string>) => ReactNode][] = [
  ["/monitors", () => <MonitorsOverview />],
  [
    "/monitors/new",
    () => (
      <RequirePermission permission="monitors:write" what="create monitors" back={{ to: "/monitors", label: "Back to monitors" }}>
        <MonitorForm />
      </RequirePermission>
    ),
  ],
  [
    "/monitors/:id/edit",
    (p) => (
      <RequirePermission permission="monitors:write" what="change monitors" back={{ to: `/monitors/${p.id!}`, label: "Back to the monitor" }}>
        <MonitorEdit id={p.id!} />
      </RequirePermission>
    ),
  ],
  ["/monitors/:id/checks/:checkId", (p) => <ResultPage key={p.checkId} id={p.id!} checkId={p.checkId!} />],
  ["/monitors/:id", (p) => <MonitorDetail key={p.id} id={p.id!} />],
  ["/groups", () => <Groups />],
  ["/maintenance", () => <MaintenanceWindows />],
];
