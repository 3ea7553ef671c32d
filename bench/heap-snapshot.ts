/**
 * What a V8-format heap snapshot (bench/heap-probe.ts with HEAP_PROBE_SNAPSHOT=1, or Bun.generateHeapSnapshot("v8"))
 * holds, summed: by kind and name of node (count, self bytes), strings by pattern (hex runs and digits folded, so
 * `mon_<32 hex>` ids count as one row), and for the largest groups who holds them (the kind and name of a retainer and
 * the edge's name). Given a second snapshot (--base), prints the difference per unit (e.g. per monitor with --per).
 * Bench tooling only.
 * Usage: bun bench/heap-snapshot.ts FILE [--base FILE] [--per N] [--top 30]
 */
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { base: { type: "string" }, per: { type: "string", default: "1" }, top: { type: "string", default: "30" } },
});
const PER = Number(values.per);
const TOP = Number(values.top);

interface Snapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[]]; edge_fields: string[]; edge_types: [string[]] } };
  nodes: number[];
  edges: number[];
  strings: string[];
}

interface Group {
  count: number;
  bytes: number;
  holders: Map<string, number>;
}

/** Folds the parts of a string that differ between monitors: hex runs, digits. */
const pattern = (s: string) =>
  s
    .slice(0, 80)
    .replace(/[0-9a-f]{8,}/g, "<hex>")
    .replace(/[0-9]+/g, "9");

function summarise(file: string): Map<string, Group> {
  const snap = JSON.parse(readFileSync(file, "utf8")) as Snapshot;
  const nf = snap.snapshot.meta.node_fields.length;
  const ef = snap.snapshot.meta.edge_fields.length;
  const nodeTypes = snap.snapshot.meta.node_types[0];
  const edgeTypes = snap.snapshot.meta.edge_types[0];
  const [T, NAME, SIZE, EDGES] = ["type", "name", "self_size", "edge_count"].map((f) => snap.snapshot.meta.node_fields.indexOf(f)) as [number, number, number, number];
  const [ET, EN, ETO] = ["type", "name_or_index", "to_node"].map((f) => snap.snapshot.meta.edge_fields.indexOf(f)) as [number, number, number];
  const n = snap.nodes.length / nf;
  const keyOf = (i: number) => {
    const type = nodeTypes[snap.nodes[i * nf + T]!]!;
    const name = snap.strings[snap.nodes[i * nf + NAME]!] ?? "";
    return type === "string" || type === "concatenated string" || type === "sliced string" ? `string ${JSON.stringify(pattern(name))}` : `${type} ${name.slice(0, 60)}`;
  };
  // The first retainer of each node (enough to say who holds a group).
  const holder = new Int32Array(n).fill(-1);
  const holderEdge = new Array<string>(n);
  for (let i = 0, e = 0; i < n; i++) {
    const count = snap.nodes[i * nf + EDGES]!;
    for (let k = 0; k < count; k++, e++) {
      const to = snap.edges[e * ef + ETO]! / nf;
      if (holder[to] !== -1) continue;
      holder[to] = i;
      const type = edgeTypes[snap.edges[e * ef + ET]!];
      const name = snap.edges[e * ef + EN]!;
      holderEdge[to] = type === "element" || type === "hidden" ? `[${type}]` : String(snap.strings[name] ?? name);
    }
  }
  const groups = new Map<string, Group>();
  for (let i = 0; i < n; i++) {
    const key = keyOf(i);
    let g = groups.get(key);
    if (!g) groups.set(key, (g = { count: 0, bytes: 0, holders: new Map() }));
    g.count++;
    g.bytes += snap.nodes[i * nf + SIZE]!;
    const h = holder[i]!;
    const by = h === -1 ? "(none)" : `${keyOf(h)} .${holderEdge[i]}`;
    g.holders.set(by, (g.holders.get(by) ?? 0) + 1);
  }
  return groups;
}

const [file] = positionals;
if (!file) throw new Error("usage: bun bench/heap-snapshot.ts FILE [--base FILE] [--per N]");
const after = summarise(file);
const before = values.base ? summarise(values.base) : new Map<string, Group>();
const rows = [...new Set([...after.keys(), ...before.keys()])].map((key) => {
  const a = after.get(key);
  const b = before.get(key);
  return { key, count: ((a?.count ?? 0) - (b?.count ?? 0)) / PER, bytes: ((a?.bytes ?? 0) - (b?.bytes ?? 0)) / PER, holders: a?.holders };
});
rows.sort((x, y) => Math.abs(y.bytes) - Math.abs(x.bytes));
const total = rows.reduce((s, r) => s + r.bytes, 0);
console.log(`${values.base ? "difference" : "total"}${PER !== 1 ? ` per ${PER}` : ""}: ${total.toFixed(1)} bytes (self sizes)`);
for (const r of rows.slice(0, TOP)) {
  const top = r.holders ? [...r.holders].sort((x, y) => y[1] - x[1]).slice(0, 2).map(([h, c]) => `${h} ×${c}`).join("; ") : "";
  console.log(`${r.bytes.toFixed(1).padStart(10)} B ${r.count.toFixed(2).padStart(8)}×  ${r.key.slice(0, 70).padEnd(70)} held by ${top.slice(0, 160)}`);
}
