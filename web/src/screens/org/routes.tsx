import type { ReactNode } from "react";

export const orgScreens: [string, (p: Record<string, string>) => ReactNode][] = [];
