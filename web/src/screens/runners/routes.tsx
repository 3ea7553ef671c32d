import { lazy, type ReactNode } from "react";

// Loaded on first use, so the first screen (the monitors overview) does not wait for this area.
const Runners = lazy(() => import("./runners").then((m) => ({ default: m.Runners })));

export const runnerScreens: [string, (p: Record<string, string>) => ReactNode][] = [["/runners", () => <Runners />]];
