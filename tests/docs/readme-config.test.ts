import { describe, expect, it } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { TObject } from "@sinclair/typebox";
import { alertingEnv } from "../../alerting/config.ts";
import { apiEnv } from "../../api/config.ts";
import { simEnv } from "../../billing/simulator/main.ts";
import { workerEnv } from "../../runner/cloud/config.ts";
import { runnerEnv } from "../../runner/config.ts";
import { schedulerEnv } from "../../scheduler/config.ts";

/** Each role's environment schema: the single source of what the role reads. */
const ROLES: Record<string, TObject> = { api: apiEnv, scheduler: schedulerEnv, worker: workerEnv, alerting: alertingEnv, runner: runnerEnv, "billing-sim": simEnv };

interface Row {
  variable: string;
  roles: string[];
  defaultCell: string;
}

function configurationRows(): Row[] {
  const readme = readFileSync(join(import.meta.dir, "..", "..", "README.md"), "utf8");
  const section = readme.slice(readme.indexOf("## Configuration"), readme.indexOf("## Architecture"));
  return section
    .split("\n")
    .filter((l) => /^\| `[A-Z0-9_]+` \|/.test(l))
    .map((l) => {
      const [variable, roles, defaultCell] = l.split(" | ").map((c) => c.replace(/^\| /, "").trim());
      const names = roles!.split(",").map((r) => r.trim());
      return { variable: variable!.replaceAll("`", ""), roles: names, defaultCell: defaultCell! };
    });
}

describe("README configuration table", () => {
  const rows = configurationRows();

  it("lists every variable each role reads, under that role", () => {
    const missing: string[] = [];
    for (const [role, schema] of Object.entries(ROLES)) {
      for (const name of Object.keys(schema.properties)) {
        if (!rows.some((r) => r.variable === name && r.roles.includes(role))) missing.push(`${name} (${role})`);
      }
    }
    expect(missing).toEqual([]);
  });

  it("lists no variable a role does not read", () => {
    const stale = rows.flatMap((r) => r.roles.filter((role) => role in ROLES && !(r.variable in ROLES[role]!.properties)).map((role) => `${r.variable} (${role})`));
    expect(stale).toEqual([]);
  });

  it("shows the defaults the roles apply", () => {
    const wrong: string[] = [];
    for (const r of rows) {
      const literal = /^`([^`]*)`$/.exec(r.defaultCell)?.[1];
      if (literal === undefined) continue;
      for (const role of r.roles.filter((x) => x in ROLES)) {
        const prop = ROLES[role]!.properties[r.variable] as { default?: unknown } | undefined;
        if (prop && prop.default !== undefined && String(prop.default) !== literal) wrong.push(`${r.variable} (${role}): README ${literal}, code ${String(prop.default)}`);
      }
    }
    expect(wrong).toEqual([]);
  });
});
