/**
 * What is wrong with a cron expression croner refused, said after the field's name ("Cron expression needs 5 fields …"):
 * croner's own messages name its internals ("configuration entry 5 (1-XYZ) contains illegal characters").
 */
const FIELDS = ["seconds", "minute", "hour", "day of month", "month", "weekday"] as const;
const RANGES: Record<string, string> = {
  seconds: "0–59",
  second: "0–59",
  minute: "0–59",
  hour: "0–23",
  day: "1–31",
  month: "1–12 or JAN–DEC",
  weekday: "0–7 or SUN–SAT",
  dayofweek: "0–7 or SUN–SAT",
};
const NAMES: Record<string, string> = { day: "day of month", dayofweek: "weekday", second: "seconds" };
const FORM = "5 fields (minute hour day month weekday) or 6 (seconds first), such as 0 3 * * *";

export function cronProblem(expr: string, err: unknown): string {
  const text = String((err as Error)?.message ?? err).replace(/^CronPattern: /, "");
  const fields = expr.trim().split(/\s+/).filter(Boolean);
  if (/configuration format|requires exactly|space separated parts/i.test(text)) return `needs ${FORM}; this has ${fields.length === 1 ? "1 field" : `${fields.length} fields`}`;
  // croner counts the fields with seconds first (a 5-field expression gets seconds 0 in front).
  const withSeconds = fields.length === 5 ? ["0", ...fields] : fields;
  const value = /Invalid value for (\w+)/i.exec(text);
  if (value) {
    const field = value[1]!.toLowerCase();
    const index = FIELDS.indexOf((NAMES[field] ?? field) as (typeof FIELDS)[number]);
    const given = index >= 0 && withSeconds[index] !== undefined ? `: "${withSeconds[index]}"` : "";
    const name = NAMES[field] ?? field;
    return `has ${name === "hour" ? "an" : "a"} ${name} out of range (${RANGES[field] ?? "see its field"})${given}`;
  }
  const entry = /configuration entry (\d+) \(([^)]*)\) contains illegal characters/i.exec(text);
  if (entry) {
    const index = Number(entry[1]);
    return `has characters cron does not read in its ${FIELDS[index] ?? "a"} field: "${withSeconds[index] ?? entry[2]}"`;
  }
  if (/illegal stepping/i.test(text)) return "has a step that is not a whole number of 1 or more (such as */5)";
  const range = /illegal range: '([^']*)'/i.exec(text);
  if (range) return `has a range cron does not read: "${range[1]}" (a range is two values, such as 1-5)`;
  return `is not a cron expression (${FORM}): ${text}`;
}
