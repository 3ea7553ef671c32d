import fc from "fast-check";
import { bodySchemaOf, deref, type Endpoint, type FuzzRequest, type OpenApiDocument, type Schema, validValueArbitrary } from "./openapi-fuzz.ts";

/**
 * Schemathesis's two halves of a request, from our own document: positive requests (everything the
 * document allows and nothing else, with the caller's real ids) that must not be refused as invalid,
 * and negative ones (one valid request with exactly one rule of the document broken) that must be.
 */

const asQueryValue = (v: unknown) => (Array.isArray(v) ? v.join(",") : typeof v === "object" ? JSON.stringify(v) : String(v));

/** A request the document says is valid, at `path` (path parameters already filled with real ids). */
export function validRequestArbitrary(doc: OpenApiDocument, e: Endpoint, path: string, key: string): fc.Arbitrary<FuzzRequest> {
  const query = (e.op.parameters ?? []).filter((p) => p.in === "query");
  const bodySchema = bodySchemaOf(doc, e.op);
  const queryArb = fc
    .tuple(...query.map((p) => fc.option(validValueArbitrary(doc, p.schema, p.name).map((v) => [p.name, asQueryValue(v)] as [string, string]), { nil: null, freq: p.required ? 1_000_000 : 2 })))
    .map((pairs) => pairs.filter((x): x is [string, string] => x !== null));
  const bodyArb = bodySchema ? validValueArbitrary(doc, bodySchema) : fc.constant(undefined);
  return fc.tuple(queryArb, bodyArb).map(([q, body]) => ({
    method: e.method,
    path,
    query: q,
    headers: { authorization: `Bearer ${key}` },
    bodyKind: bodySchema ? ("json" as const) : null,
    body,
  }));
}

/** A value of another JSON type than the schema's. */
function wrongTypeFor(s: Schema): unknown {
  const type = Array.isArray(s.type) ? s.type[0] : s.type;
  if (type === "string") return 12345;
  if (type === "integer" || type === "number") return "not-a-number";
  if (type === "boolean") return "yes";
  if (type === "array") return "not-an-array";
  if (type === "object") return 5;
  return undefined;
}

/** One way to break a valid request against the document, or null when there is none of that kind. */
type Mutation = (doc: OpenApiDocument, e: Endpoint, r: FuzzRequest) => { r: FuzzRequest; what: string } | null;

const MUTATIONS: Mutation[] = [
  // The body of another JSON type altogether.
  (doc, e, r) => (bodySchemaOf(doc, e.op) ? { r: { ...r, body: 42 }, what: "body is a number" } : null),
  // An unknown field in a closed object.
  (doc, e, r) => {
    const s = bodySchemaOf(doc, e.op);
    if (!s || s.additionalProperties !== false || typeof r.body !== "object" || r.body === null) return null;
    return { r: { ...r, body: { ...(r.body as object), zz_unknown_field: 1 } }, what: "unknown body field" };
  },
  // A required field left out.
  (doc, e, r) => {
    const s = bodySchemaOf(doc, e.op);
    const field = s?.required?.[0];
    if (!field || typeof r.body !== "object" || r.body === null) return null;
    const { [field]: _, ...rest } = r.body as Record<string, unknown>;
    return { r: { ...r, body: rest }, what: `required body.${field} missing` };
  },
  // A field of the wrong type.
  (doc, e, r) => {
    const s = bodySchemaOf(doc, e.op);
    if (!s?.properties || typeof r.body !== "object" || r.body === null) return null;
    for (const [k, sub] of Object.entries(s.properties as Record<string, Schema>)) {
      const wrong = wrongTypeFor(deref(doc, sub));
      if (wrong !== undefined) return { r: { ...r, body: { ...(r.body as object), [k]: wrong } }, what: `body.${k} of the wrong type` };
    }
    return null;
  },
  // A query parameter outside its schema: not a member of its enum, past its bounds, not a number, not a date.
  (doc, e, r) => {
    for (const p of (e.op.parameters ?? []).filter((p) => p.in === "query")) {
      const s = deref(doc, p.schema);
      const bad = s.enum ? "zz-not-a-member" : s.type === "integer" ? (s.maximum !== undefined ? String(s.maximum + 1) : "1.5x") : s.format === "date-time" ? "2026-02-30T00:00:00Z" : s.maxLength !== undefined ? "q".repeat(s.maxLength + 1) : s.type === "boolean" ? "maybe" : null;
      if (bad !== null) return { r: { ...r, query: [...r.query.filter(([k]) => k !== p.name), [p.name, bad]] }, what: `query.${p.name}=${bad.slice(0, 20)}` };
    }
    return null;
  },
  // An unknown query parameter (refused, never ignored) on the API; public pages and probes ignore them (cache busters),
  // as does an operation marked `x-ignores-unknown-query` (the SSO callback: the identity provider adds its own).
  (_doc, e, r) =>
    e.path.startsWith("/api/v1/") && !(e.op as { "x-ignores-unknown-query"?: boolean })["x-ignores-unknown-query"]
      ? { r: { ...r, query: [...r.query, ["zz_unknown", "1"]] }, what: "unknown query parameter" }
      : null,
];

/** Valid requests with one mutation each; `what` names the rule broken. */
export function invalidRequestArbitrary(doc: OpenApiDocument, e: Endpoint, valid: fc.Arbitrary<FuzzRequest>): fc.Arbitrary<{ r: FuzzRequest; what: string } | null> {
  return fc.tuple(valid, fc.nat(MUTATIONS.length - 1)).map(([r, i]) => {
    for (let k = 0; k < MUTATIONS.length; k++) {
      const out = MUTATIONS[(i + k) % MUTATIONS.length]!(doc, e, r);
      if (out) return out;
    }
    return null;
  });
}
