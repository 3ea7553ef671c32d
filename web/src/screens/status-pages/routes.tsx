import type { ReactNode } from "react";
import { IncidentDetail, Incidents } from "./incidents";
import { StatusPageEditor } from "./status-page-editor";
import { StatusPagesList } from "./status-pages-list";

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
