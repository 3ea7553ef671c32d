import { lazy, type ReactNode } from "react";

// Loaded on first use, so the first screen (the monitors overview) does not wait for this area.
const Billing = lazy(() => import("./billing").then((m) => ({ default: m.Billing })));

export const billingScreens: [string, (p: Record<string, string>) => ReactNode][] = [["/billing", () => <Billing />]];
