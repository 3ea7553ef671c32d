import type { ReactNode } from "react";
import { AccountData } from "./data";
import { Profile } from "./profile";
import { Sessions } from "./sessions";
import { TwoFactor } from "./two-factor";

export const accountScreens: [string, (p: Record<string, string>) => ReactNode][] = [
  ["/account", () => <Profile />],
  ["/account/security", () => <TwoFactor />],
  ["/account/sessions", () => <Sessions />],
  ["/account/data", () => <AccountData />],
];
