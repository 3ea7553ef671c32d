import { lazy, type ReactNode } from "react";

// Loaded on first use, so the first screen (the monitors overview) does not wait for this area.
const AccountData = lazy(() => import("./data").then((m) => ({ default: m.AccountData })));
const Profile = lazy(() => import("./profile").then((m) => ({ default: m.Profile })));
const Sessions = lazy(() => import("./sessions").then((m) => ({ default: m.Sessions })));
const TwoFactor = lazy(() => import("./two-factor").then((m) => ({ default: m.TwoFactor })));

export const accountScreens: [string, (p: Record<string, string>) => ReactNode][] = [
  ["/account", () => <Profile />],
  ["/account/security", () => <TwoFactor />],
  ["/account/sessions", () => <Sessions />],
  ["/account/data", () => <AccountData />],
];
