import type { ReactNode } from "react";

export const accountScreens: [string, (p: Record<string, string>) => ReactNode][] = [];
