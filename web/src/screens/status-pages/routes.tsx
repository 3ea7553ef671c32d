import { lazy, type ReactNode } from "react";

// Loaded on first use, so the first screen (the monitors overview) does not wait for this area.
const IncidentDetail = lazy(() => import("./incidents").then((m) => ({ default: m.IncidentDetail })));
const Incidents = lazy(() => import("./incidents").then((m) => ({ default: m.Incidents })));
const StatusPageEditor = lazy(() => import("./status-page-editor").then((m) => ({ default: m.StatusPageEditor })));
const StatusPagesList = lazy(() => import("./status-pages-list").then((m) => ({ default: m.StatusPagesList })));

export const statusPageScreens: [string, (p: Record<string, string>) => ReactNode][] = [
  ["/status-pages", () => <StatusPagesList />],
  ["/status-pages/:id", (p) => <StatusPageEditor key={p.id} id={p.id!} tab="layout" />],
  ["/status-pages/:id/settings", (p) => <StatusPageEditor key={p.id} id={p.id!} tab="settings" />],
  ["/status-pages/:id/domain", (p) => <StatusPageEditor key={p.id} id={p.id!} tab="domain" />],
  ["/status-pages/:id/theme", (p) => <StatusPageEditor key={p.id} id={p.id!} tab="theme" />],
  ["/status-pages/:id/subscribers", (p) => <StatusPageEditor key={p.id} id={p.id!} tab="subscribers" />],
  ["/incidents", () => <Incidents />],
  ["/incidents/:id", (p) => <IncidentDetail key={p.id} id={p.id!} />],
];
