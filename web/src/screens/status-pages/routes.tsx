import type { ReactNode } from "react";

export const statusPageScreens: [string, (p: Record<string, string>) => ReactNode][] = [];
