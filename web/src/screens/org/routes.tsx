import { lazy, type ReactNode } from "react";

// Loaded on first use, so the first screen (the monitors overview) does not wait for this area.
const ApiKeys = lazy(() => import("./api-keys").then((m) => ({ default: m.ApiKeys })));
const AuditLog = lazy(() => import("./audit-log").then((m) => ({ default: m.AuditLog })));
const Members = lazy(() => import("./members").then((m) => ({ default: m.Members })));
const Roles = lazy(() => import("./roles").then((m) => ({ default: m.Roles })));
const Sso = lazy(() => import("./sso").then((m) => ({ default: m.Sso })));
const Security = lazy(() => import("./security").then((m) => ({ default: m.Security })));

export const orgScreens: [string, (p: Record<string, string>) => ReactNode][] = [
  ["/org", () => <Members />],
  ["/org/roles", () => <Roles />],
  ["/org/security", () => <Security />],
  ["/org/sso", () => <Sso />],
  ["/org/api-keys", () => <ApiKeys />],
  ["/org/audit-log", () => <AuditLog />],
];
