/** Turns expected_status entries (200, "2xx", "200-299") into one predicate. */
export function statusMatcher(expected: ReadonlyArray<number | string>): (status: number) => boolean {
  const ranges: Array<[number, number]> = expected.map((entry) => {
    if (typeof entry === "number") return [entry, entry];
    if (entry.endsWith("xx")) {
      const base = Number(entry[0]) * 100;
      return [base, base + 99];
    }
    const [low, high = low] = entry.split("-").map(Number);
    return [low, high];
  });
  return (status) => ranges.some(([low, high]) => status >= low && status <= high);
}
