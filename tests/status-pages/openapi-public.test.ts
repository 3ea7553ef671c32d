import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { startTestApi, type TestApi } from "../support/api.ts";

let api: TestApi;
let doc: any;
beforeAll(async () => {
  api = await startTestApi();
  doc = await (await fetch(`${api.url}/openapi.json`)).json();
}, 60_000);
afterAll(() => api.stop(), 60_000);

describe("the OpenAPI document's public surfaces", () => {
  it("documents every public status-page, feed and badge route with what it answers", () => {
    const expected: [string, string, string][] = [
      ["get", "/status/{slug}", "text/html"],
      ["get", "/status/{slug}/index.json", "application/json"],
      ["get", "/status/{slug}/feed.rss", "application/rss+xml"],
      ["get", "/status/{slug}/feed.atom", "application/atom+xml"],
      ["post", "/status/{slug}/subscribe", "text/html"],
      ["get", "/status/{slug}/confirm", "text/html"],
      ["get", "/badge/{id}/status.svg", "image/svg+xml"],
      ["get", "/badge/{id}/uptime.svg", "image/svg+xml"],
      ["get", "/badge/{id}/response-time.svg", "image/svg+xml"],
    ];
    for (const [method, path, type] of expected) {
      const op = doc.paths[path]?.[method];
      expect(op, `${method} ${path}`).toBeDefined();
      expect(op.security).toEqual([]);
      expect(Object.keys(op.responses["200"].content)).toEqual([type]);
      // A confirmation link of an unknown page is a bad link (400), like any other bad link: no 404.
      expect(op.responses[path.endsWith("/confirm") ? "400" : "404"]).toBeDefined();
    }
    expect(doc.paths["/status/{slug}/login"].post.responses["303"]).toBeDefined();
    expect(doc.paths["/api/v1/unsubscribe"].get.security).toEqual([]);
    expect(doc.paths["/api/v1/unsubscribe"].post.security).toEqual([]);
  });

  it("documents the outgoing webhook bodies and the signature headers", () => {
    const alert = doc.webhooks.alertDelivery.post;
    expect(alert.requestBody.content["application/json"].schema.$ref).toBe("#/components/schemas/WebhookPayload");
    // Standard Webhooks headers (standardwebhooks.com), the signature optional (channels without a secret).
    expect(alert.parameters.map((p: { name: string; required: boolean }) => [p.name, p.required])).toEqual([
      ["webhook-id", true],
      ["webhook-timestamp", true],
      ["webhook-signature", false],
      ["X-Watchpost-Event", true],
    ]);
    expect(alert.description).toContain("Standard Webhooks");
    expect(doc.components.schemas.WebhookPayload.properties.dedup_key).toBeDefined();
    expect(doc.webhooks.statusPageSubscriber.post.requestBody.content["application/json"].schema.$ref).toBe("#/components/schemas/SubscriberWebhookPayload");
    expect(doc.components.schemas.SubscriberWebhookPayload.properties.unsubscribe_url).toBeDefined();
  });
});
