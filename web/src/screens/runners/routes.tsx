import type { ReactNode } from "react";
import { Runners } from "./runners";

export const runnerScreens: [string, (p: Record<string, string>) => ReactNode][] = [["/runners", () => <Runners />]];
