import type { ReactNode } from "react";

export const billingScreens: [string, (p: Record<string, string>) => ReactNode][] = [];
