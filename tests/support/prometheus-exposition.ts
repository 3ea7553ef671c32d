/**
 * A strict reader of the Prometheus text format 0.0.4 for tests: it checks the rules a scraper relies on
 * (HELP and TYPE once per family and before its samples, a family's samples together, no duplicate
 * series, histogram buckets rising in `le`, cumulative, ending with +Inf equal to `_count`) and returns
 * every sample by its series key, so two scrapes can be compared (`expectCountersGrew`).
 */
export interface Exposition {
  types: Map<string, string>;
  /** `name{sorted labels}` → value, for every sample. */
  samples: Map<string, number>;
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;

function parseLabels(text: string, at: number, line: string): [Record<string, string>, number] {
  const labels: Record<string, string> = {};
  let i = at;
  const fail = (why: string) => {
    throw new Error(`${why}: ${line}`);
  };
  while (text[i] !== "}") {
    const eq = text.indexOf("=", i);
    if (eq < 0) fail("label without =");
    const name = text.slice(i, eq);
    if (!/^[a-zA-Z_][a-zA-Z0-9_]*$/.test(name)) fail(`bad label name ${name}`);
    if (text[eq + 1] !== '"') fail("label value without quotes");
    let v = "";
    let j = eq + 2;
    for (; j < text.length && text[j] !== '"'; j++) {
      if (text[j] !== "\\") v += text[j];
      else {
        const c = text[++j];
        if (c === "\\") v += "\\";
        else if (c === '"') v += '"';
        else if (c === "n") v += "\n";
        else fail(`bad escape \\${c}`);
      }
    }
    if (j >= text.length) fail("unterminated label value");
    if (name in labels) fail(`label ${name} twice`);
    labels[name] = v;
    i = j + 1;
    if (text[i] === ",") i++;
    else if (text[i] !== "}") fail("expected , or }");
  }
  return [labels, i + 1];
}

const seriesKey = (name: string, labels: Record<string, string>) =>
  `${name}{${Object.keys(labels).sort().map((k) => `${k}=${JSON.stringify(labels[k])}`).join(",")}}`;

const parseValue = (v: string) => (v === "+Inf" ? Infinity : v === "-Inf" ? -Infinity : v === "NaN" ? NaN : Number(v));

/** The family a sample belongs to, given the families declared so far. */
function familyOf(name: string, types: Map<string, string>): string {
  for (const suffix of ["_bucket", "_count", "_sum"]) {
    const base = name.slice(0, -suffix.length);
    if (name.endsWith(suffix) && ["histogram", "summary"].includes(types.get(base) ?? "")) return base;
  }
  return name;
}

/** Parses a whole scrape, throwing on the first rule broken. */
export function readExposition(text: string): Exposition {
  const types = new Map<string, string>();
  const helps = new Set<string>();
  const samples = new Map<string, number>();
  const finished = new Set<string>();
  const buckets = new Map<string, { le: number; value: number }[]>();
  let current: string | null = null;
  const enter = (family: string, line: string) => {
    if (family === current) return;
    if (finished.has(family)) throw new Error(`family ${family} is not in one piece: ${line}`);
    if (current) finished.add(current);
    current = family;
  };
  for (const line of text.split("\n")) {
    if (line === "") continue;
    const meta = /^# (HELP|TYPE) (\S+) ?(.*)$/.exec(line);
    if (meta) {
      const [, kind, name, rest] = meta as unknown as [string, string, string, string];
      if (!NAME.test(name)) throw new Error(`bad metric name: ${line}`);
      enter(name, line);
      if (kind === "HELP") {
        if (helps.has(name)) throw new Error(`HELP twice for ${name}`);
        helps.add(name);
      } else {
        if (types.has(name)) throw new Error(`TYPE twice for ${name}`);
        if (!["counter", "gauge", "histogram", "summary", "untyped"].includes(rest)) throw new Error(`bad type: ${line}`);
        if ([...samples.keys()].some((k) => familyOf(k.slice(0, k.indexOf("{")), types) === name)) throw new Error(`TYPE after samples: ${line}`);
        types.set(name, rest);
      }
      continue;
    }
    if (line.startsWith("#")) continue;
    const nameEnd = line.search(/[{ ]/);
    const name = line.slice(0, nameEnd);
    if (!NAME.test(name)) throw new Error(`bad sample name: ${line}`);
    const [labels, at] = line[nameEnd] === "{" ? parseLabels(line, nameEnd + 1, line) : [{}, nameEnd];
    const rest = line.slice(at).trim().split(/\s+/);
    if (rest.length < 1 || rest.length > 2 || rest[0] === "") throw new Error(`bad sample: ${line}`);
    const value = parseValue(rest[0]!);
    if (Number.isNaN(value) && rest[0] !== "NaN") throw new Error(`bad value: ${line}`);
    const family = familyOf(name, types);
    enter(family, line);
    const type = types.get(family) ?? "untyped";
    if (type === "counter" && !(value >= 0)) throw new Error(`negative counter: ${line}`);
    if (type === "histogram" && name === `${family}_bucket`) {
      if (!("le" in labels)) throw new Error(`bucket without le: ${line}`);
      const { le, ...rest } = labels;
      const list = buckets.get(seriesKey(family, rest)) ?? [];
      list.push({ le: parseValue(le!), value });
      buckets.set(seriesKey(family, rest), list);
    }
    const key = seriesKey(name, labels);
    if (samples.has(key)) throw new Error(`duplicate series: ${line}`);
    samples.set(key, value);
  }
  for (const [series, list] of buckets) {
    for (let i = 1; i < list.length; i++) {
      if (!(list[i]!.le > list[i - 1]!.le)) throw new Error(`buckets of ${series} not in rising le`);
      if (list[i]!.value < list[i - 1]!.value) throw new Error(`buckets of ${series} not cumulative`);
    }
    const last = list[list.length - 1]!;
    if (last.le !== Infinity) throw new Error(`buckets of ${series} do not end with +Inf`);
    const count = samples.get(series.replace("{", "_count{"));
    if (count !== last.value) throw new Error(`+Inf bucket of ${series} is ${last.value}, _count ${count}`);
    if (!samples.has(series.replace("{", "_sum{"))) throw new Error(`${series} has no _sum`);
  }
  for (const [family, type] of types) {
    if (type === "counter" && !family.endsWith("_total")) throw new Error(`counter ${family} does not end in _total`);
  }
  return { types, samples };
}

/**
 * The samples of counters and of histograms' buckets, counts and sums (also counters) that fell from one scrape to
 * the next: a series present in both may only grow (or reset to zero, which these tests never expect).
 */
export function fallenCounters(before: Exposition, after: Exposition): string[] {
  const fallen: string[] = [];
  for (const [key, value] of before.samples) {
    const name = key.slice(0, key.indexOf("{"));
    const family = familyOf(name, before.types);
    const type = before.types.get(family);
    if (type !== "counter" && type !== "histogram" && !(type === "summary" && name !== family)) continue;
    const next = after.samples.get(key);
    if (next !== undefined && next < value) fallen.push(`${key}: ${value} → ${next}`);
  }
  return fallen;
}
