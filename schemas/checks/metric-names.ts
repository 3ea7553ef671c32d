import type { TSchema } from "@sinclair/typebox";
import { type CheckType, dataSchemas } from "../check-types.ts";

/** Every check reports its duration: `response_time` and its alias `duration_ms` (spec: metric_threshold). */
const DURATION_METRICS = ["response_time", "duration_ms"] as const;

const isNumeric = (s: TSchema): boolean =>
  s.type === "number" || s.type === "integer" || (Array.isArray(s.anyOf) && (s.anyOf as TSchema[]).some(isNumeric));

/**
 * The metrics a metric_threshold rule can watch on each monitor type: the duration plus every
 * numeric field of the type's result data, read from the data schemas (a new check type gets its own).
 */
export const metricsByMonitorType: Readonly<Record<CheckType, readonly string[]>> = Object.fromEntries(
  Object.entries(dataSchemas).map(([type, schema]) => [
    type,
    [...new Set([...DURATION_METRICS, ...Object.entries(schema.properties as Record<string, TSchema>).filter(([, s]) => isNumeric(s)).map(([name]) => name)])],
  ]),
) as unknown as Record<CheckType, readonly string[]>;

/** Every metric some monitor type reports, sorted. */
export const allMetricNames: readonly string[] = [...new Set(Object.values(metricsByMonitorType).flat())].sort();
