import type { CheckResultRow } from "./types.ts";

/**
 * A stored result with every data field its check type documents: a field added to the type after the row was
 * stored reads null (not measured), as the API promises ("all present"). Rows are stored as they came and never
 * rewritten for this (compressed TimescaleDB chunks could not be), so the read fills them in.
 */
export function withAllFields(fields: readonly string[]): (row: CheckResultRow) => CheckResultRow {
  return (row) => {
    if (fields.every((f) => f in row.data)) return row;
    const data: Record<string, unknown> = { ...row.data };
    for (const f of fields) if (!(f in data)) data[f] = null;
    return { ...row, data };
  };
}
