/**
 * OpenAPI 3.1 `webhooks`: the requests Watchpost sends to endpoints its users give it (a webhook
 * alert channel, a status-page webhook subscriber). The bodies are in components.schemas.
 */
const header = (name: string, description: string, required = true) => ({ name, in: "header", required, description, schema: { type: "string" } });
const ok = { "2XX": { description: "Any 2xx answer counts as delivered; answer within 10 s and do slow work afterwards" } };

export const openApiWebhooks = {
  alertDelivery: {
    post: {
      summary: "A webhook alert channel's delivery (alert, escalation, reminder, recovery, acknowledgement, test)",
      description:
        "POST to the channel's config.url, signed the Standard Webhooks way (https://www.standardwebhooks.com): verify with any Standard Webhooks library, e.g. `new Webhook(secret).verify(rawBody, headers)` from the standardwebhooks npm package, which also rejects timestamps more than 5 minutes off. The signed content is \"<webhook-id>.<webhook-timestamp>.<raw body>\", HMAC-SHA256 keyed with config.secret (whsec_ + base64; a secret that is not whsec_ signs as its raw bytes). While config.previous_secret is set (a rotation), webhook-signature carries one v1 signature per secret. Drop a webhook-id already seen (retries). Non-2xx answers and timeouts are retried with exponential backoff (jitter, Retry-After honoured) up to ALERTING_MAX_ATTEMPTS; 4xx other than 408/429 are permanent (docs/channels.md).",
      operationId: "alertDelivery",
      security: [],
      parameters: [
        header("webhook-id", "Delivery id, the same on every retry of one delivery (the body's id); signed"),
        header("webhook-timestamp", "Unix time in seconds when this attempt was sent; signed"),
        header(
          "webhook-signature",
          "Space-separated `v1,<base64 HMAC-SHA256>` signatures: one per secret (two during a rotation); present when the channel has a secret",
          false,
        ),
        header("X-Watchpost-Event", "alert, escalation, reminder, recovery, acknowledgement or test (also the body's kind); not signed"),
      ],
      requestBody: { required: true, content: { "application/json": { schema: { $ref: "#/components/schemas/WebhookPayload" } } } },
      responses: ok,
    },
  },
  statusPageSubscriber: {
    post: {
      summary: "An incident notice to a status page's webhook subscriber (incident.created, incident.updated, incident.resolved)",
      description:
        "POST to the subscriber's webhook_url after the incident change is committed, signed the Standard Webhooks way with the subscription's secret (webhook_secret, shown once when the subscriber is added): verify with any Standard Webhooks library, e.g. `new Webhook(secret).verify(rawBody, headers)` from the standardwebhooks npm package. After the URL is added again (a new secret), webhook-signature carries one v1 signature per secret until the next. Drop a webhook-id already seen (retries). Non-2xx answers and timeouts are retried with exponential backoff up to 6 attempts; 3xx and 4xx other than 408/429 are permanent.",
      operationId: "statusPageSubscriberNotice",
      security: [],
      parameters: [
        header("webhook-id", "Notice id, the same on every retry of one notice; signed"),
        header("webhook-timestamp", "Unix time in seconds when this attempt was sent; signed"),
        header(
          "webhook-signature",
          "Space-separated `v1,<base64 HMAC-SHA256>` signatures, one per secret (two after the URL was added again); absent only for a subscription made before notices were signed",
          false,
        ),
      ],
      requestBody: { required: true, content: { "application/json": { schema: { $ref: "#/components/schemas/SubscriberWebhookPayload" } } } },
      responses: ok,
    },
  },
};

export const SubscriberWebhookPayload = {
  title: "Status-page subscriber webhook",
  type: "object",
  required: ["type", "page", "incident", "update", "unsubscribe_url"],
  properties: {
    type: { type: "string", enum: ["incident.created", "incident.updated", "incident.resolved"] },
    page: { type: "object", required: ["id", "name", "url"], properties: { id: { type: "string" }, name: { type: "string" }, url: { type: "string", format: "uri" } } },
    incident: {
      type: "object",
      required: ["id", "title", "impact", "status", "created_at", "resolved_at"],
      properties: {
        id: { type: "string" },
        title: { type: "string" },
        impact: { type: "string", enum: ["none", "minor", "major", "critical"] },
        status: { type: "string", enum: ["investigating", "identified", "monitoring", "resolved"] },
        created_at: { type: "string", format: "date-time" },
        resolved_at: { type: ["string", "null"], format: "date-time" },
      },
    },
    update: {
      type: "object",
      required: ["status", "message", "created_at"],
      properties: { status: { type: "string" }, message: { type: "string" }, created_at: { type: "string", format: "date-time" } },
    },
    unsubscribe_url: { type: "string", format: "uri", description: "POST it to stop these notices (a GET only describes what it would do)" },
  },
};
