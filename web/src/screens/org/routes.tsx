import type { ReactNode } from "react";
import { ApiKeys } from "./api-keys";
import { AuditLog } from "./audit-log";
import { Members } from "./members";
import { Roles } from "./roles";
import { Security } from "./security";

export const orgScreens: [string, (p: Record<string, string>) => ReactNode][] = [
  ["/org", () => <Members />],
  ["/org/roles", () => <Roles />],
  ["/org/security", () => <Security />],
  ["/org/api-keys", () => <ApiKeys />],
  ["/org/audit-log", () => <AuditLog />],
];
