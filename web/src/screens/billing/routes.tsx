import type { ReactNode } from "react";
import { Billing } from "./billing";

export const billingScreens: [string, (p: Record<string, string>) => ReactNode][] = [["/billing", () => <Billing />]];
