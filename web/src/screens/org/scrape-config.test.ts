import { describe, expect, it } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { prometheusScrapeConfig } from "./scrape-config";

const DOC = join(import.meta.dir, "..", "..", "..", "..", "docs", "metrics.md");

describe("prometheusScrapeConfig", () => {
  it("is the scrape config docs/metrics.md shows, for the documented example host", () => {
    const doc = readFileSync(DOC, "utf8");
    const block = doc.match(/```yaml\n(scrape_configs:[\s\S]*?)\n```/)?.[1];
    expect(block).toBe(prometheusScrapeConfig(new URL("https://watchpost.example.com/api/v1/metrics")));
  });

  it("keeps the scheme and port of a self-hosted server", () => {
    const config = prometheusScrapeConfig(new URL("http://watchpost.example.test:3000/api/v1/metrics"));
    expect(config).toContain("    scheme: http\n");
    expect(config).toContain('      - targets: ["watchpost.example.test:3000"]');
  });
});
