import type { Static, TObject, TSchema } from "@sinclair/typebox";

/** Outcome of one check. */
export type CheckStatus = "up" | "down" | "degraded" | "timeout";
export const CHECK_STATUSES: readonly CheckStatus[] = ["up", "down", "degraded", "timeout"];

/** One flat record in a list, e.g. a browser flow's per-step outcomes. */
export type CheckDataRecord = Record<string, number | string | boolean | null>;
export type CheckDataValue = number | string | boolean | string[] | CheckDataRecord[] | null;
export type CheckData = Record<string, CheckDataValue>;

/**
 * Everything the rest of the system knows about a check type, declared once in
 * `runner/checks/<type>/<type>-schema.ts` and listed once in `schemas/check-types.ts`.
 */
export interface CheckSpec<T extends string = string, C extends TSchema = TSchema, D extends TObject = TObject> {
  type: T;
  /** The type picker's text: "Name — what it watches". */
  label: string;
  /** One line for docs/check-types.md's table. */
  summary: string;
  /** worker: every worker and runner runs it; browser: where a browser pool offers the engine; inbound: never runs (heartbeat). */
  runsOn: "worker" | "browser" | "inbound";
  /** The plan quota a monitor of this type counts against. */
  quota: "monitors" | "lite_browser" | "flow_browser";
  /** The monitor's `config`. */
  config: C;
  /** The `data` of every result; numeric fields are metric_threshold metrics. */
  data: D;
  /** When true, data.response_time is set to the check's duration_ms. */
  reportsResponseTime?: boolean;
  /**
   * Checks the schema cannot express (a regular expression that does not compile, either this field or that),
   * run by the API and the form on a config that passed the schema; paths are below the config, e.g.
   * `assertions.0.target`, empty for the config as a whole.
   */
  validate?(config: Static<C>): Array<{ path: string; message: string }>;
}

/** Keeps the literal type of `type` and `runsOn` so the registry can derive lists from them. */
export const defineCheckSpec = <const T extends string, C extends TSchema, D extends TObject, const R extends CheckSpec["runsOn"]>(
  spec: CheckSpec<T, C, D> & { runsOn: R },
): CheckSpec<T, C, D> & { runsOn: R } => spec;
