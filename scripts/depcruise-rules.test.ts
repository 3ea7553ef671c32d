// Every forbidden rule in .dependency-cruiser.cjs must still fire: a fixture tree breaks each one once and
// dependency-cruiser (run the way `npm run deps:check` runs it) must report that rule by name. A rule whose
// regex has rotted, or that was disabled, fails here instead of silently letting imports through.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

const root = join(import.meta.dir, "..");
const config = join(root, ".dependency-cruiser.cjs");
const rules: { name: string }[] = createRequire(import.meta.url)(config).forbidden;

/** The rule each fixture breaks, and the files that break it (path → source). */
const breaking: Record<string, Record<string, string>> = {
  "kernel-imports-nothing-of-ours": { "core/kernel.ts": `import { d } from "../db/query.ts";\nexport const k = d;\n` },
  "db-imports-only-kernel": { "db/query.ts": `import { x } from "../domain/service.ts";\nexport const d = x;\n` },
  "domain-below-roles": { "domain/service.ts": `import { a } from "../api/route.ts";\nexport const x = a;\n` },
  "domain-speaks-no-http": { "domain/http.ts": `import { Elysia } from "elysia";\nexport const app = new Elysia();\n` },
  "schemas-import-only-schemas": { "schemas/impure.ts": `import { k } from "../core/kernel.ts";\nexport const s = k;\n` },
  "schemas-import-only-pure-packages": { "schemas/io.ts": `import { readFileSync } from "node:fs";\nexport const r = readFileSync;\n` },
  "api-not-another-role": { "api/route.ts": `import { plan } from "../scheduler/plan.ts";\nexport const a = plan;\n` },
  "scheduler-not-another-role": { "scheduler/plan.ts": `import { evaluate } from "../alerting/runtime/evaluate.ts";\nexport const plan = evaluate;\n` },
  "alerting-not-another-role": { "alerting/runtime/evaluate.ts": `import { run } from "../../runner/execute.ts";\nexport const evaluate = run;\n` },
  "runner-speaks-only-bus-or-https": { "runner/execute.ts": `import { d } from "../db/query.ts";\nexport const run = d;\n` },
  "cli-not-a-role": { "cli/main.ts": `import { a } from "../api/route.ts";\nexport const c = a;\n` },
  "user-cli-speaks-only-rest": { "cli/watchpost/command.ts": `import { d } from "../../db/query.ts";\nexport const c = d;\n` },
  "web-imports-web-and-schemas": { "web/src/screen.ts": `import { run } from "../../runner/execute.ts";\nexport const w = run;\n` },
  "web-no-node-or-bun": { "web/src/files.ts": `import { readFileSync } from "node:fs";\nexport const w = readFileSync;\n` },
  "roles-only-from-composition-roots": { "scripts/tool.ts": `import { plan } from "../scheduler/plan.ts";\nexport const t = plan;\n` },
  "no-production-import-of-tests": {
    "core/uses-test.ts": `import { helper } from "./kernel.test.ts";\nexport const u = helper;\n`,
    "core/kernel.test.ts": `export const helper = 1;\n`,
  },
  "not-to-unresolvable": { "core/broken.ts": `import { gone } from "./missing.ts";\nexport const b = gone;\n` },
  "no-circular": {
    "web/src/cycle-a.ts": `import { b } from "./cycle-b.ts";\nexport const a = () => b;\n`,
    "web/src/cycle-b.ts": `import { a } from "./cycle-a.ts";\nexport const b = () => a;\n`,
  },
};

/** Imports the layers allow: none of these files may appear in a violation. */
const allowed: Record<string, string> = {
  "schemas/pure.ts": `import { Type } from "@sinclair/typebox";\nexport const P = Type.String();\n`,
  "web/src/ok.ts": `import { P } from "../../schemas/pure.ts";\nexport const ok = P;\n`,
  "api/ok.ts": `import { P } from "../schemas/pure.ts";\nimport { svc } from "../domain/ok.ts";\nexport const ok = [P, svc];\n`,
  "domain/ok.ts": `import { q } from "../db/ok.ts";\nexport const svc = q;\n`,
  "db/ok.ts": `import { kk } from "../core/ok.ts";\nexport const q = kk;\n`,
  "core/ok.ts": `export const kk = 1;\n`,
  "cli/watchpost/ok.ts": `import { P } from "../../schemas/pure.ts";\nexport const ok = P;\n`,
  "runner/ok.ts": `import { kk } from "../core/ok.ts";\nimport { P } from "../schemas/pure.ts";\nexport const ok = [kk, P];\n`,
};

let dir = "";
let report: { summary: { violations: { from: string; to: string; rule: { name: string } }[] } };

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "depcruise-rules-"));
  const files: Record<string, string> = {
    "tsconfig.json": JSON.stringify({ compilerOptions: { module: "ESNext", moduleResolution: "bundler", allowImportingTsExtensions: true, noEmit: true } }),
    // Fake packages, so the package rules have something to resolve to.
    "node_modules/elysia/package.json": JSON.stringify({ name: "elysia", version: "1.0.0", main: "index.js" }),
    "node_modules/elysia/index.js": "export class Elysia {}\n",
    "node_modules/@sinclair/typebox/package.json": JSON.stringify({ name: "@sinclair/typebox", version: "0.34.0", main: "index.js" }),
    "node_modules/@sinclair/typebox/index.js": "export const Type = {};\n",
    "package.json": JSON.stringify({ name: "fixture", type: "module", dependencies: { elysia: "1.0.0", "@sinclair/typebox": "0.34.0" } }),
    ...allowed,
    ...Object.assign({}, ...Object.values(breaking)),
  };
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  const run = Bun.spawnSync(
    ["node", "--import", join(root, "scripts/depcruise-ts5.mjs"), join(root, "node_modules/dependency-cruiser/bin/dependency-cruise.mjs"),
      "--config", config, "--output-type", "json", "core", "db", "domain", "schemas", "api", "scheduler", "alerting", "runner", "cli", "web", "scripts"],
    { cwd: dir, stdout: "pipe", stderr: "pipe" },
  );
  const out = run.stdout.toString();
  if (!out.trim().startsWith("{")) throw new Error(`dependency-cruiser gave no report (exit ${run.exitCode}): ${run.stderr.toString()}`);
  report = JSON.parse(out);
});

afterAll(() => {
  if (dir && !process.env.KEEP) rmSync(dir, { recursive: true, force: true });
});

test("every forbidden rule has a fixture that breaks it", () => {
  expect(Object.keys(breaking).sort()).toEqual(rules.map((r) => r.name).sort());
});

test.each(Object.entries(breaking))("%s is reported for its fixture", (name, files) => {
  const hits = report.summary.violations.filter((v) => v.rule.name === name).map((v) => v.from);
  expect(hits.filter((from) => from in files)).not.toEqual([]);
});

test("imports the layers allow are not reported", () => {
  const bad = report.summary.violations.filter((v) => v.from in allowed);
  expect(bad).toEqual([]);
});
