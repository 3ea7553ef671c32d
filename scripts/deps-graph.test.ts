import { describe, expect, it } from "bun:test";
import { render, splice } from "./deps-graph.ts";

describe("layer graph of docs/architecture.md", () => {
  it("draws one arrow per pair of folders, counts the imports on it and colours an arrow with a broken rule red", () => {
    const block = render([
      { source: "api/routes/a.ts", dependencies: [
        { resolved: "domain/monitors/service.ts", valid: true },
        { resolved: "domain/results/ingest.ts", valid: true },
        { resolved: "runner/checks/registry.ts", valid: false, rules: [{ name: "api-not-another-role", severity: "error" }] },
      ] },
      { source: "domain/monitors/service.ts", dependencies: [{ resolved: "db/queries/monitors.ts", valid: true }] },
    ]);
    expect(block).toContain("api -->|2| domain");
    expect(block).toContain("api -->|1| runner");
    expect(block).toContain("domain -->|1| db");
    expect(block).toContain("linkStyle 0 stroke:#d33"); // api → runner is drawn first (roles before domain)
    expect(block).toContain("| `api-not-another-role` | 1 |");
  });

  it("puts a check type's schema file in the pure layer and leaves tests out", () => {
    const block = render([
      { source: "web/src/x.ts", dependencies: [{ resolved: "runner/checks/tcp/tcp-schema.ts", valid: true }] },
      { source: "api/x.test.ts", dependencies: [{ resolved: "runner/checks/registry.ts", valid: true }] },
      { source: "core/bus/bus.case.ts", dependencies: [{ resolved: "db/client.ts", valid: true }] },
    ]);
    expect(block).toContain("web -->|1| schemas");
    expect(block).not.toContain("api -->");
    expect(block).not.toContain("core -->");
    expect(block).toContain("no import that breaks one");
  });

  it("replaces only the block between the markers", () => {
    const doc = "a\n<!-- gen:layers (bun scripts/deps-graph.ts) -->\nold\n<!-- /gen:layers -->\nb\n";
    expect(splice(doc, "new")).toBe("a\n<!-- gen:layers (bun scripts/deps-graph.ts) -->\nnew\n<!-- /gen:layers -->\nb\n");
  });
});
