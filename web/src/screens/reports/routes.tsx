import type { ReactNode } from "react";
import { Reports } from "./reports";

export const reportScreens: [string, (p: Record<string, string>) => ReactNode][] = [["/reports", () => <Reports />]];
