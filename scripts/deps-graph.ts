// Draws the layer graph of docs/architecture.md from dependency-cruiser's view of the tree:
// `bun scripts/deps-graph.ts` rewrites the block between the gen:layers markers; `--check` exits 1 when it is stale.
// One node per folder group (production code only: tests and test support are left out), one arrow per pair of
// groups with the number of file-to-file imports on it; an arrow with an import that breaks a rule is red.
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const root = join(import.meta.dir, "..");
const DOC = join(root, "docs/architecture.md");
const BEGIN = "<!-- gen:layers (bun scripts/deps-graph.ts) -->";
const END = "<!-- /gen:layers -->";
const FOLDERS = ["core", "db", "domain", "schemas", "api", "scheduler", "alerting", "runner", "billing", "web", "cli"];

// Same boundaries as .dependency-cruiser.cjs: a check type's and a channel type's *-schema.ts belong to the pure layer.
const PURE = /^(schemas\/|runner\/checks\/[^/]+\/[^/]+-schema\.ts$|alerting\/channels\/[^/]+\/[^/]+-schema\.ts$)/;
const TESTS =
  /(\.test\.tsx?$|\.case\.ts$|\/test-support\/|\/testing\/|^tests\/|\/contract\.ts$|\/testing\.ts$|\/test-fixtures\.ts$|\/timescale-test-db\.ts$)/;

interface Group { id: string; label: string; layer: string; match: RegExp }
// First match wins, so the narrower patterns come first.
const GROUPS: Group[] = [
  { id: "web", label: "web/", layer: "dashboard", match: /^web\// },
  { id: "schemas", label: "schemas/ + each type's *-schema.ts", layer: "pure", match: PURE },
  { id: "api", label: "api/", layer: "roles", match: /^api\// },
  { id: "scheduler", label: "scheduler/", layer: "roles", match: /^scheduler\// },
  { id: "alertingDomain", label: "alerting/service, alerting/engine", layer: "domain", match: /^alerting\/(service|engine)\// },
  { id: "alerting", label: "alerting/ (role)", layer: "roles", match: /^alerting\// },
  { id: "runner", label: "runner/ (checks, cloud worker, runner)", layer: "roles", match: /^runner\// },
  { id: "cli", label: "cli/", layer: "roles", match: /^cli\// },
  { id: "billingSim", label: "billing/simulator", layer: "roles", match: /^billing\/simulator\// },
  { id: "domain", label: "domain/", layer: "domain", match: /^domain\// },
  { id: "billing", label: "billing/", layer: "domain", match: /^billing\// },
  { id: "db", label: "db/", layer: "db", match: /^db\// },
  { id: "core", label: "core/", layer: "kernel", match: /^core\// },
];
const LAYERS: [string, string][] = [
  ["dashboard", "dashboard"],
  ["roles", "roles: one entry point each"],
  ["domain", "domain services"],
  ["pure", "pure schemas"],
  ["db", "database"],
  ["kernel", "kernel"],
];

interface Dep { resolved: string; valid: boolean; rules?: { name: string; severity: string }[] }
interface Mod { source: string; dependencies: Dep[] }

function cruise(): Mod[] {
  const cli = join(root, "node_modules/dependency-cruiser/bin/dependency-cruise.mjs");
  const PRELOAD = join(import.meta.dir, "depcruise-ts5.mjs"); // dependency-cruiser 16 on TypeScript 5: see that file
  const run = spawnSync(
    "node",
    ["--import", PRELOAD, cli, "--config", ".dependency-cruiser.cjs", "--output-type", "json", ...FOLDERS],
    { cwd: root, encoding: "utf8", maxBuffer: 256 * 1024 * 1024 },
  );
  if (run.error || !run.stdout) throw new Error(`dependency-cruiser failed: ${run.error?.message ?? run.stderr}`);
  return (JSON.parse(run.stdout) as { modules: Mod[] }).modules;
}

const groupOf = (path: string) => (TESTS.test(path) ? undefined : GROUPS.find((g) => g.match.test(path)));

export function render(modules: Mod[]): string {
  const edges = new Map<string, { count: number; broken: number }>();
  const brokenByRule = new Map<string, number>();
  for (const mod of modules) {
    const from = groupOf(mod.source);
    if (!from) continue;
    for (const dep of mod.dependencies) {
      const to = groupOf(dep.resolved);
      if (!to || to === from) continue;
      const key = `${from.id} ${to.id}`;
      const edge = edges.get(key) ?? { count: 0, broken: 0 };
      edge.count++;
      const errors = (dep.rules ?? []).filter((r) => r.severity === "error");
      if (errors.length) edge.broken++;
      for (const r of errors) brokenByRule.set(r.name, (brokenByRule.get(r.name) ?? 0) + 1);
      edges.set(key, edge);
    }
  }
  const lines = ["```mermaid", "flowchart TB"];
  for (const [layer, title] of LAYERS) {
    lines.push(`  subgraph ${layer}Layer["${title}"]`);
    for (const g of GROUPS.filter((x) => x.layer === layer)) lines.push(`    ${g.id}["${g.label}"]`);
    lines.push("  end");
  }
  const order = (id: string) => GROUPS.findIndex((g) => g.id === id);
  const sorted = [...edges].sort(([a], [b]) => {
    const [a1, a2] = a.split(" "), [b1, b2] = b.split(" ");
    return order(a1) - order(b1) || order(a2) - order(b2);
  });
  const red: number[] = [];
  sorted.forEach(([key, e], i) => {
    const [from, to] = key.split(" ");
    lines.push(`  ${from} -->|${e.count}| ${to}`);
    if (e.broken) red.push(i);
  });
  if (red.length) lines.push(`  linkStyle ${red.join(",")} stroke:#d33,stroke-width:2px`);
  lines.push("```", "");
  const total = [...brokenByRule.values()].reduce((a, b) => a + b, 0);
  if (total === 0) {
    lines.push("Every arrow keeps the rules: dependency-cruiser reports no import that breaks one.");
  } else {
    lines.push(`Red arrows carry imports that break a rule (${total} in all; \`npm run deps:check\` names each):`, "");
    lines.push("| rule | imports |", "|---|---|");
    for (const [rule, n] of [...brokenByRule].sort(([a], [b]) => a.localeCompare(b))) lines.push(`| \`${rule}\` | ${n} |`);
  }
  return lines.join("\n");
}

export function splice(doc: string, block: string): string {
  const a = doc.indexOf(BEGIN), b = doc.indexOf(END);
  if (a < 0 || b < a) throw new Error(`docs/architecture.md: markers ${BEGIN} … ${END} not found`);
  return `${doc.slice(0, a + BEGIN.length)}\n${block}\n${doc.slice(b)}`;
}

if (import.meta.main) {
  const doc = readFileSync(DOC, "utf8");
  const next = splice(doc, render(cruise()));
  if (process.argv.includes("--check")) {
    if (next !== doc) {
      console.error("docs/architecture.md: the layer graph is stale; run `npm run deps:graph`");
      process.exit(1);
    }
  } else if (next !== doc) {
    writeFileSync(DOC, next);
    console.log("docs/architecture.md: layer graph rewritten");
  }
}
