/** Whether a status matches one of the expected_status entries (200, "2xx", "200-299"). */
export function statusMatches(expected: ReadonlyArray<number | string>, status: number): boolean {
  for (const entry of expected) if (inEntry(entry, status)) return true;
  return false;
}

/** Turns expected_status entries into one predicate. */
export function statusMatcher(expected: ReadonlyArray<number | string>): (status: number) => boolean {
  return (status) => statusMatches(expected, status);
}

function inEntry(entry: number | string, status: number): boolean {
  if (typeof entry === "number") return status === entry;
  if (entry.endsWith("xx")) {
    const base = Number(entry[0]) * 100;
    return status >= base && status <= base + 99;
  }
  const dash = entry.indexOf("-");
  const low = Number(dash === -1 ? entry : entry.slice(0, dash));
  const high = dash === -1 ? low : Number(entry.slice(dash + 1));
  return status >= low && status <= high;
}
