import { toOpenAPISchema } from "@elysiajs/openapi";
import type { AnyElysia } from "elysia";
import { openApiWebhooks, SubscriberWebhookPayload } from "./webhooks.ts";
import { typeConfigBody, typeConfigView } from "./typed-config.ts";
import { operationIdFor } from "./operation-ids.ts";
import { OPERATION_EXAMPLES } from "./examples.ts";
import { accessNote, OPERATION_DESCRIPTIONS } from "./operation-descriptions.ts";
import { requirementOf, type RouteLike } from "../middleware/route-table.ts";

type ParameterSchema = { default?: unknown; anyOf?: ParameterSchema[]; type?: string; format?: string; [k: string]: unknown };

type Operation = {
  operationId?: string;
  description?: string;
  parameters?: { in: string; name: string; required?: boolean; schema?: ParameterSchema }[];
  requestBody?: { content?: Record<string, unknown> };
  responses?: Record<string, unknown>;
  security?: unknown[];
  tags?: string[];
  /** Error statuses a route answers beyond the usual ones (e.g. 401 on a public sign-in); removed from the output. */
  "x-errors"?: string[];
};

const ERROR_DESCRIPTIONS: Record<string, string> = {
  "400": "VALIDATION_ERROR: body or query failed validation; details.issues lists { path, message }",
  "401": "UNAUTHENTICATED: missing or invalid credentials",
  "403": "PERMISSION_DENIED (role or key scope) or ENTITLEMENT_REQUIRED (details.entitlement)",
  "404": "NOT_FOUND: does not exist or belongs to another organisation",
  "409": "CONFLICT with current state",
  "413": "PAYLOAD_TOO_LARGE: body over the size limit",
  "429": "RATE_LIMIT_EXCEEDED; details.retryAfterSeconds and Retry-After give the wait",
  "500": "INTERNAL_ERROR; safe to retry with backoff",
  "503": "SERVICE_UNAVAILABLE: the database or the message bus is unreachable; retry (Retry-After)",
};

const errorRef = (status: string) => ({
  description: ERROR_DESCRIPTIONS[status],
  content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } },
});

const RATE_HEADERS = {
  "X-RateLimit-Limit": { description: "Requests allowed in the current one-minute window", schema: { type: "integer" } },
  "X-RateLimit-Remaining": { description: "Requests left in the window", schema: { type: "integer" } },
  "X-RateLimit-Reset": { description: "Seconds until the window resets", schema: { type: "integer" } },
};

/**
 * Elysia documents a numeric parameter as "any string with format integer, or an integer" (what it
 * coerces from); a parameter's schema describes the value, so it is the integer or number with its bounds.
 */
function exactParameter(schema: ParameterSchema): ParameterSchema {
  const alts = schema.anyOf;
  const numeric = alts?.find((a) => a.type === "integer" || a.type === "number");
  if (!alts || !numeric || !alts.every((a) => a === numeric || (a.type === "string" && (a.format === "integer" || a.format === "numeric")))) return schema;
  const { anyOf: _, ...outer } = schema;
  return { ...outer, ...numeric };
}

/** JSON with sorted keys: two schemas with the same text describe the same shape. */
const canonical = (v: unknown): string =>
  JSON.stringify(v, (_, x) => (x && typeof x === "object" && !Array.isArray(x) ? Object.fromEntries(Object.entries(x).sort(([a], [b]) => a.localeCompare(b))) : x));

type Json = { [k: string]: unknown };
/**
 * A component written in TypeBox in the form Elysia gives its route schemas: a union of constants is an
 * `enum`, "X or null" is `type: [X, "null"]` — so a response and its component compare equal. Used to compare only.
 */
function asElysiaWrites(node: unknown): unknown {
  if (!node || typeof node !== "object") return node;
  if (Array.isArray(node)) return node.map(asElysiaWrites);
  const out = Object.fromEntries(Object.entries(node).map(([k, v]) => [k, asElysiaWrites(v)])) as Json;
  const alts = out.anyOf as Json[] | undefined;
  if (!alts) return out;
  const { anyOf: _, ...rest } = out;
  const consts = alts.every((a) => "const" in a && Object.keys(a).length === 2 && a.type === alts[0]!.type);
  // (Elysia drops the union's own keys, such as its description, there.)
  if (consts) return { type: alts[0]!.type, enum: alts.map((a) => a.const) };
  const nullable = alts.length === 2 && alts.some((a) => a.type === "null" && Object.keys(a).length === 1);
  const other = alts.find((a) => a.type !== "null");
  if (nullable && other && typeof other.type === "string" && !("properties" in other)) return { ...rest, ...other, type: [other.type, "null"] };
  // "An object or null": Elysia writes the object with `type: ["object", "null"]` and keeps the object's own keys only.
  if (nullable && other && other.type === "object") return { ...other, type: ["object", "null"] };
  return out;
}

/**
 * A response schema (or any part of it) that is exactly one of the named object components becomes a
 * `$ref` to it, so generators emit one `Monitor`, `CheckResult`, `Pagination`… type instead of copies.
 */
function referToComponents(node: unknown, byShape: Map<string, string>): unknown {
  if (!node || typeof node !== "object") return node;
  if (Array.isArray(node)) return node.map((n) => referToComponents(n, byShape));
  const name = byShape.get(canonical(node));
  if (name) return { $ref: `#/components/schemas/${name}` };
  return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, referToComponents(v, byShape)]));
}

/**
 * The OpenAPI 3.1 document: Elysia's route schemas (via @elysiajs/openapi) plus what is
 * common to every operation: error responses, rate-limit headers, security schemes.
 */
export function buildOpenApiDocument(app: AnyElysia, extraSchemas: Record<string, unknown> = {}, configRefs: Record<string, Record<string, string>> = {}): string {
  const generated = toOpenAPISchema(app, { paths: [/^\/openapi\.json$/, /^\/api\/v1\/openapi\.json$/, /^\/metrics$/], staticFile: false }) as {
    paths: Record<string, Record<string, Operation>>;
    components: { schemas: Record<string, unknown> };
  };
  const byShape = new Map(
    Object.entries(extraSchemas)
      .filter(([, schema]) => (schema as { type?: string }).type === "object")
      .map(([name, schema]) => [canonical(asElysiaWrites(JSON.parse(JSON.stringify(schema)))), name] as const),
  );
  // Who may call each operation, from its route's `requires` guard (api/middleware/auth.ts), by "method {path}".
  const requirements = new Map((app.routes as RouteLike[]).map((r) => [`${r.method.toLowerCase()} ${r.path.replace(/:([^/]+)/g, "{$1}")}`, requirementOf(r)]));
  for (const [path, item] of Object.entries(generated.paths)) {
    for (const [method, op] of Object.entries(item)) {
      op.operationId = operationIdFor(method, path);
      // What it does and its notable errors (the route's own words, else the table), then who may call it.
      op.description = [op.description ?? OPERATION_DESCRIPTIONS[op.operationId], accessNote(requirements.get(`${method} ${path}`), op.security)].filter(Boolean).join("\n\n");
      for (const p of op.parameters ?? []) {
        if (p.in === "query" && p.schema?.default !== undefined) p.required = false;
        if (p.schema) p.schema = exactParameter(p.schema);
      }
      const json = op.requestBody?.content?.["application/json"] as { schema?: Parameters<typeof typeConfigBody>[0] } | undefined;
      if (json?.schema) json.schema = typeConfigBody(json.schema, configRefs);
      if (op.requestBody && json) op.requestBody.content = { "application/json": json };
      const responses = (op.responses ??= {});
      // Handlers that answer 204 declare no response schema; the document still names their success.
      if (!Object.keys(responses).some((s) => s.startsWith("2"))) responses["204"] = { description: "No content" };
      const examples = OPERATION_EXAMPLES[op.operationId];
      if (examples?.request && json) (json as { example?: unknown }).example = examples.request;
      for (const [status, res] of Object.entries(responses)) {
        if (examples?.response && status.startsWith("2")) for (const media of Object.values((res as { content?: Record<string, { example?: unknown }> }).content ?? {})) media.example = examples.response;
        const content = (res as { content?: Record<string, { schema?: unknown }> }).content;
        for (const media of Object.values(content ?? {})) if (media.schema) media.schema = referToComponents(media.schema, byShape);
        if (path.startsWith("/api/v1")) (res as { headers?: unknown }).headers = RATE_HEADERS;
        if (status === "204") delete (res as { content?: unknown }).content;
      }
      if (!path.startsWith("/api/v1")) {
        // Public pages and badges validate their parameters and bodies like the API does.
        if (op.parameters?.length || op.requestBody) responses["400"] ??= errorRef("400");
        if (op.requestBody) responses["413"] ??= errorRef("413");
        continue;
      }
      const isPublic = Array.isArray(op.security) && op.security.length === 0;
      const statuses = ["429", "500", "503", ...(op["x-errors"] ?? [])];
      delete op["x-errors"];
      // Any /api/v1 operation refuses a query parameter it does not declare.
      statuses.push("400");
      if (!isPublic) statuses.push("401", "403");
      if (path.includes("{") || !isPublic) statuses.push("404");
      if (["post", "patch", "put", "delete"].includes(method)) statuses.push("409");
      if (op.requestBody) statuses.push("413");
      for (const s of statuses) responses[s] ??= errorRef(s);
    }
  }
  const document = {
    openapi: "3.1.0",
    info: {
      title: "Watchpost API",
      version: "1.0.0",
      contact: { name: "Watchpost maintainers" },
      license: { name: "Apache-2.0", identifier: "Apache-2.0" },
      description: "Uptime monitoring. Every error answers the Error shape { error, code, details }. Collections take page and limit and return { data, pagination }.",
    },
    servers: [{ url: "/" }],
    security: [{ bearerAuth: [] }, { sessionCookie: [] }],
    tags: [
      { name: "auth", description: "Sign-up, sign-in, sessions, password reset" },
      { name: "user", description: "The signed-in user's own account" },
      { name: "organisations", description: "Organisations you belong to" },
      { name: "organisation", description: "The active organisation: settings, members, roles, invitations, audit log" },
      { name: "api-keys", description: "Programmatic access" },
      { name: "billing", description: "Plans, entitlements, subscription" },
      { name: "system", description: "Health, readiness and the API description" },
      { name: "monitors", description: "Monitors, their check results, uptime and aggregates; run-now, pause, resume, bulk actions, groups" },
      { name: "alerting", description: "Alert channels, alert rules, escalation policies, alert history, notifications" },
      { name: "incidents", description: "Incidents and their updates" },
      { name: "maintenance", description: "Maintenance windows that silence alerts" },
      { name: "reports", description: "Scheduled report emails: weekly or monthly uptime, incidents and slowest monitors, per organisation or status page" },
      { name: "status-pages", description: "Status pages: layout, custom domain, subscribers" },
      { name: "public status pages", description: "Public status pages, feeds, subscriptions and badges (no authentication)" },
      { name: "themes", description: "Status page themes" },
      { name: "regions", description: "Regions and locations monitors run from" },
      { name: "events", description: "Live events (server-sent events)" },
      { name: "runners", description: "Self-hosted runners: create (one-time rt_ token), list, status, rename, revoke" },
      {
        name: "runner",
        description:
          "Protocol a self-hosted runner speaks (docs/runners.md): Authorization: Bearer rt_…, HTTPS only (403 RUNNER_HTTPS_REQUIRED; plain HTTP only on a loopback-bound development listener from loopback); after POST /runner/session every body is a session payload { session_id, seq, nonce, ciphertext } (AES-256-GCM)",
      },
    ],
    paths: generated.paths,
    webhooks: openApiWebhooks,
    components: {
      securitySchemes: {
        bearerAuth: { type: "http", scheme: "bearer", description: "API key wp_live_…" },
        sessionCookie: { type: "apiKey", in: "cookie", name: "wp_session", description: "Web app session; writes also need X-CSRF-Token" },
        runnerToken: { type: "http", scheme: "bearer", description: "Runner token rt_… (runner protocol only); unknown or revoked → 401 RUNNER_TOKEN_INVALID" },
      },
      schemas: {
        ...generated.components.schemas,
        ...Object.assign({}, ...Object.entries(extraSchemas).map(([name, schema]) => typeConfigView(name, schema as Parameters<typeof typeConfigView>[1], configRefs))),
        SubscriberWebhookPayload,
        Error: {
          title: "Error",
          description: "The body of every error answer (4xx and 5xx) of the API and of the public pages' JSON",
          type: "object",
          required: ["error", "code"],
          properties: {
            error: { type: "string", description: "Human-readable message" },
            code: {
              type: "string",
              enum: ["VALIDATION_ERROR", "UNAUTHENTICATED", "PERMISSION_DENIED", "ENTITLEMENT_REQUIRED", "NOT_FOUND", "METHOD_NOT_ALLOWED", "CONFLICT", "PAYLOAD_TOO_LARGE", "RATE_LIMIT_EXCEEDED", "INTERNAL_ERROR", "SERVICE_UNAVAILABLE", "RUNNER_TOKEN_INVALID", "RUNNER_HTTPS_REQUIRED", "RUNNER_SESSION_INVALID", "RUNNER_PAYLOAD_INVALID", "RUNNER_PLAINTEXT_REFUSED", "RUNNER_REPLAY", "RUNNER_CLAIM_FOREIGN", "STATUS_PAGE_SUSPENDED"],
            },
            details: { type: "object", additionalProperties: true, description: "Present only with structured context" },
          },
        },
      },
    },
  };
  return JSON.stringify(document);
}
