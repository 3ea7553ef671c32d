import { lazy, type ReactNode } from "react";
import { ActiveAlerts, AlertHistory } from "./active-alerts";

// The editors validate with the API's TypeBox schemas: loaded when first opened.
const AlertRules = lazy(() => import("./alert-rules").then((m) => ({ default: m.AlertRules })));
const AlertTimelinePage = lazy(() => import("./alert-timeline").then((m) => ({ default: m.AlertTimelinePage })));
const AlertChannels = lazy(() => import("./alert-channels").then((m) => ({ default: m.AlertChannels })));

export const alertScreens: [string, (p: Record<string, string>) => ReactNode][] = [
  ["/alerts", () => <ActiveAlerts />],
  ["/alerts/history", () => <AlertHistory />],
  ["/alerts/:id", (p) => <AlertTimelinePage key={p.id} id={p.id!} />],
  ["/alert-rules", () => <AlertRules />],
  ["/alert-channels", () => <AlertChannels />],
];
