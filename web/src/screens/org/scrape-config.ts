/** The Prometheus scrape job of docs/metrics.md ("Scrape config"), for the server the dashboard runs on. */
export function prometheusScrapeConfig(metricsUrl: URL): string {
  return [
    "scrape_configs:",
    "  - job_name: watchpost",
    "    scrape_interval: 60s",
    `    scheme: ${metricsUrl.protocol.replace(":", "")}`,
    `    metrics_path: ${metricsUrl.pathname}`,
    "    authorization:",
    "      type: Bearer",
    "      # a key with only monitors:read, readable by Prometheus alone",
    "      credentials_file: /etc/prometheus/watchpost-api-key",
    "    static_configs:",
    `      - targets: ["${metricsUrl.host}"]`,
  ].join("\n");
}
