// bun scripts/codemod-move.ts ROOT MOVES [--dry]
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, posix } from "node:path";
import { spawnSync } from "node:child_process";
const [root, movesFile, flag] = process.argv.slice(2); const dry = flag === "--dry";
const SKIP = new Set(["node_modules", ".git", ".data", "dist"]);
const walk = (d: string, out: string[] = []) => { for (const f of readdirSync(join(root, d))) { if (SKIP.has(f)) continue;
  const p = d ? `${d}/${f}` : f; statSync(join(root, p)).isDirectory() ? walk(p, out) : out.push(p); } return out; };
const all = walk(""); const map = new Map<string, string>(); const rules: [string, string][] = [];
for (const line of readFileSync(movesFile, "utf8").split("\n")) { const t = line.replace(/#.*/, "").trim(); if (!t) continue;
  if (t.startsWith("@routes")) { for (const f of all) { const m = f.match(/^api\/routes\/([^/]+)\/index\.ts$/);
    if (m && m[1] !== "plugins") map.set(f, `api/routes/${m[1]}/${m[1]}-routes.ts`); } continue; }
  const [a, b] = t.split(/\s+/); rules.push([a, b]); }
rules.sort((x, y) => y[0].length - x[0].length);                       // file lines beat their directory's line
for (const f of all) { if (map.has(f)) continue; const r = rules.find(([a]) => f === a || f.startsWith(a + "/"));
  if (r) map.set(f, r[1] + f.slice(r[0].length)); }
const newOf = (f: string) => map.get(f) ?? f;
const RESOLVE = ["", ".ts", ".tsx", ".d.ts", "/index.ts", "/index.tsx"];
const SPEC = /(\bfrom\s*|\bimport\s*\(\s*|\brequire\s*\(\s*|\bimport\s+|new URL\(\s*)(["'])(\.{1,2}\/[^"']*)\2/g;
const out = new Map<string, string>(); const unresolved: string[] = [];
for (const f of all.filter((p) => /\.(ts|tsx)$/.test(p))) {
  const src = readFileSync(join(root, f), "utf8"); const from = dirname(f), to = dirname(newOf(f));
  const next = src.replace(SPEC, (whole, pre, q, spec) => {
    const base = posix.normalize(posix.join(from, spec)); const hit = RESOLVE.map((s) => base + s).find((c) => all.includes(c));
    if (!hit) { unresolved.push(`${f}: ${spec}`); return whole; }
    const target = newOf(hit); if (target === hit && to === from) return whole;
    const suffix = hit.slice(base.length); let t = target;
    if (suffix.startsWith("/index.")) t = target.replace(/\/index\.tsx?$/, "");   // directory import stays one
    else if (suffix !== "") t = target.replace(/(\.d)?\.tsx?$/, "");             // bare specifier stays bare
    let rel = posix.relative(to, t); if (!rel.startsWith(".")) rel = "./" + rel; return `${pre}${q}${rel}${q}`; });
  if (next !== src || newOf(f) !== f) out.set(f, next); }
const pairs = [...map].filter(([a, b]) => a !== b).sort((x, y) => y[0].length - x[0].length);
for (const f of all.filter((p) => /\.(md|json|sh|yml|yaml|toml|cjs)$|Dockerfile$|^\.ci\/run$/.test(p) && !p.endsWith("bun.lock"))) {
  let s = readFileSync(join(root, f), "utf8"); const before = s; for (const [a, b] of pairs) s = s.split(a).join(b);
  if (s !== before && !dry) writeFileSync(join(root, f), s); }
console.log(`moves ${pairs.length}; unresolved: ${unresolved.length}`); if (dry) { pairs.forEach(([a, b]) => console.log(a, "->", b)); process.exit(0); }
for (const [a, b] of pairs) { mkdirSync(dirname(join(root, b)), { recursive: true });
  existsSync(join(root, ".git")) ? spawnSync("git", ["mv", a, b], { cwd: root, stdio: "inherit" }) : renameSync(join(root, a), join(root, b)); }
for (const [f, text] of out) writeFileSync(join(root, newOf(f)), text);
