import type { Sql } from "../../core/db/client.ts";
import { suppressingSpansFor } from "../../core/maintenance/active.ts";
import type { QuietSpan } from "../engine/state-machine.ts";
import type { MonitorInfo } from "./decide.ts";

/** Where the engine learns about maintenance: the suppressing windows' occurrences covering a monitor within [from, to]. */
export type QuietSpansOf = (sql: Sql, monitor: MonitorInfo, from: number, to: number) => Promise<QuietSpan[]>;

export const suppressingSpans: QuietSpansOf = (sql, monitor, from, to) => suppressingSpansFor(sql, monitor.org_id, monitor.id, monitor.tags, from, to);
