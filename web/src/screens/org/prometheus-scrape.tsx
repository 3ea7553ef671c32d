import { Snippet } from "../../components/widgets";
import { prometheusScrapeConfig } from "./scrape-config";

/** Where Prometheus scrapes this organisation's monitors, and a scrape job to paste (docs/metrics.md). */
export function PrometheusScrape() {
  const url = new URL("/api/v1/metrics", window.location.origin);
  return (
    <section className="card stack" aria-labelledby="prometheus-h" data-testid="prometheus-scrape">
      <h2 id="prometheus-h">Prometheus metrics</h2>
      <p className="muted">
        Prometheus can scrape every monitor of this organisation, per region: status, response time, checks by status, certificate and domain days left, firing alerts. Create a
        key with only the <code>monitors:read</code> scope for it. The Grafana dashboard <code>infra/grafana/watchpost-dashboard.json</code> reads these metrics.
      </p>
      <h3>Scrape URL</h3>
      <Snippet code={url.href} what="Scrape URL" testId="scrape-url" />
      <h3>Prometheus scrape job</h3>
      <Snippet code={prometheusScrapeConfig(url)} what="Prometheus scrape job" testId="scrape-config" />
    </section>
  );
}
