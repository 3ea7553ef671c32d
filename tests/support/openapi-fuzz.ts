import fc from "fast-check";

/**
 * Request generation from our own OpenAPI document: a minimal valid instance of a schema (for tests
 * that must get past validation) and fast-check arbitraries of valid, boundary and malformed values.
 * Every generated URL or host name is loopback, so no request makes the API reach anywhere else.
 */

export type Schema = Record<string, any>;
export interface Parameter {
  name: string;
  in: "path" | "query" | "header" | "cookie";
  required?: boolean;
  schema?: Schema;
}
export interface Operation {
  operationId: string;
  tags?: string[];
  parameters?: Parameter[];
  requestBody?: { required?: boolean; content?: Record<string, { schema?: Schema }> };
  responses: Record<string, { content?: Record<string, { schema?: Schema }> }>;
  security?: Record<string, unknown>[];
}
export interface OpenApiDocument {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema> };
}
export interface Endpoint {
  method: string;
  path: string;
  op: Operation;
}

/** Lone surrogates replaced, so the text can be percent-encoded into a URL. */
const wellFormed = (s: string) => s.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, "\ufffd");

export const HTTP_METHODS = ["get", "post", "put", "patch", "delete"] as const;

export function endpoints(doc: OpenApiDocument): Endpoint[] {
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([m]) => (HTTP_METHODS as readonly string[]).includes(m))
      .map(([method, op]) => ({ method: method.toUpperCase(), path, op })),
  );
}

export function deref(doc: OpenApiDocument, schema: Schema | undefined): Schema {
  let s = schema ?? {};
  for (let i = 0; s.$ref && i < 20; i++) s = doc.components.schemas[String(s.$ref).split("/").pop()!] ?? {};
  return s;
}

export const bodySchemaOf = (doc: OpenApiDocument, op: Operation): Schema | null => {
  const s = op.requestBody?.content?.["application/json"]?.schema;
  return s ? deref(doc, s) : null;
};

/** Loopback stand-ins for values whose name says they are an address. */
const LOOPBACK_URLS = ["http://127.0.0.1:9/hook", "https://127.0.0.1:9/", "http://localhost:9/x?y=1", "http://[::1]:9/"];
const isUrlName = (name: string) => /(^|_)(url|uri|endpoint|webhook|href|link)s?$/i.test(name);
const isHostName = (name: string) => /(^|_)(host|hostname|domain|server|target|address|ip)s?$/i.test(name);
const isEmailName = (name: string) => /(^|_)email$/i.test(name);

/** The first alternative of a union that is not Elysia's numeric-string stand-in or null. */
function preferred(alts: Schema[]): Schema {
  return alts.find((a) => !(a.type === "string" && (a.format === "integer" || a.format === "numeric")) && a.type !== "null") ?? alts[0]!;
}

function patternExample(pattern: string, minLength = 0): string {
  const re = new RegExp(pattern);
  const candidates = ["a", "abc", "abc-1", "a1", "example", "x".repeat(Math.max(1, minLength)), "A", "1", "0", "abc_def", "a.b", "#aabbcc", "#fff", "eu-west", "*/5 * * * *", "FREQ=DAILY", "Europe/Berlin", "UTC", "127.0.0.1", "monitors:read"];
  for (const c of candidates) if (re.test(c) && c.length >= minLength) return c;
  return fc.sample(fc.stringMatching(re), { numRuns: 20, seed: 1 }).find((s) => s.length >= minLength) ?? "a".repeat(minLength || 1);
}

function stringExample(s: Schema, name: string): string {
  if (s.format === "email" || isEmailName(name)) return "someone@example.test";
  if (s.format === "uri" || s.format === "url" || isUrlName(name)) return LOOPBACK_URLS[0]!;
  if (s.format === "date-time") return new Date(Date.now() + 3_600_000).toISOString();
  if (s.format === "date") return new Date().toISOString().slice(0, 10);
  if (isHostName(name) && !s.pattern) return "127.0.0.1";
  if (s.pattern) return patternExample(s.pattern, s.minLength ?? 0);
  const n = Math.max(s.minLength ?? 1, 1);
  return "x".repeat(Math.min(n, s.maxLength ?? n));
}

/** A small value the schema accepts: required properties only, lower bounds, first enum member. */
export function exampleOf(doc: OpenApiDocument, schema: Schema | undefined, name = ""): unknown {
  const s = deref(doc, schema);
  if ("const" in s) return s.const;
  if (s.enum) return s.enum[0];
  if (s.default !== undefined && s.type !== "object") return s.default;
  if (s.anyOf || s.oneOf) return exampleOf(doc, preferred(s.anyOf ?? s.oneOf), name);
  if (s.allOf) return Object.assign({}, ...s.allOf.map((p: Schema) => exampleOf(doc, p, name)));
  const type = Array.isArray(s.type) ? s.type.find((t: string) => t !== "null") : s.type;
  switch (type) {
    case "object": {
      const out: Record<string, unknown> = {};
      for (const key of s.required ?? []) out[key] = exampleOf(doc, s.properties?.[key], key);
      return out;
    }
    case "array":
      return Array.from({ length: s.minItems ?? 0 }, () => exampleOf(doc, s.items, name));
    case "string":
      return stringExample(s, name);
    case "integer":
      return Math.max(s.minimum ?? 1, s.exclusiveMinimum !== undefined ? s.exclusiveMinimum + 1 : 1, Math.min(1, s.maximum ?? 1));
    case "number":
      return s.minimum ?? 1;
    case "boolean":
      return false;
    case "null":
      return null;
    default:
      return s.properties ? exampleOf(doc, { ...s, type: "object" }, name) : {};
  }
}

/** Values of the wrong type, whatever the schema wanted. */
const wrongType = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer(),
  fc.double(),
  fc.string({ maxLength: 20 }),
  fc.constant([]),
  fc.constant({}),
  fc.array(fc.integer(), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 8 }), fc.string({ maxLength: 8 }), { maxKeys: 3 }),
);

/** Odd strings: control characters, NUL, unpaired surrogates, HTML, SQL, path tricks, very long. */
const nastyString = fc.oneof(
  fc.string({ unit: "binary", maxLength: 40 }),
  fc.constantFrom("", " ", "\u0000", "\ud800", "'; drop table monitors; --", "<script>alert(1)</script>", "../../etc/passwd", "%00", "${jndi:ldap://127.0.0.1/}", "null", "NaN", "-1", "1e309", "__proto__", "constructor"),
  fc.integer({ min: 257, max: 20_000 }).map((n) => "x".repeat(n)),
);

const boundaryNumbers = (s: Schema) =>
  fc.constantFrom(
    ...[
      s.minimum !== undefined ? s.minimum - 1 : -1,
      s.maximum !== undefined ? s.maximum + 1 : 2 ** 31,
      s.minimum ?? 0,
      s.maximum ?? 2 ** 31 - 1,
      0,
      -0,
      0.5,
      -1e308,
      1e308,
      Number.MAX_SAFE_INTEGER + 2,
    ],
  );

interface ArbOptions {
  /** Chance (0..1) that a value is replaced by an invalid one at each level. */
  invalid: number;
  depth?: number;
  /** Only values the schema accepts: no unknown or missing fields either. */
  pure?: boolean;
}

/** Mostly valid values with a share of boundary, wrong-typed and malformed ones at every level. */
export function arbitraryOf(doc: OpenApiDocument, schema: Schema | undefined, o: ArbOptions, name = ""): fc.Arbitrary<unknown> {
  const valid = validArbitrary(doc, schema, o, name);
  if (o.invalid <= 0) return valid;
  const s = deref(doc, schema);
  const bad: fc.Arbitrary<unknown>[] = [wrongType, nastyString];
  if (s.type === "integer" || s.type === "number" || s.anyOf?.some((a: Schema) => a.type === "integer")) bad.push(boundaryNumbers(s.anyOf ? preferred(s.anyOf) : s));
  if (s.type === "string" && s.maxLength !== undefined) bad.push(fc.constant("y".repeat(s.maxLength + 1)));
  if (s.type === "string" && s.minLength) bad.push(fc.constant("y".repeat(s.minLength - 1)));
  if (s.type === "array" && s.maxItems !== undefined && s.maxItems < 200) bad.push(fc.constant(Array.from({ length: s.maxItems + 1 }, () => exampleOf(doc, s.items, name))));
  const weight = Math.max(1, Math.round(o.invalid * 100));
  return fc.oneof({ weight: 100 - weight, arbitrary: valid }, { weight, arbitrary: fc.oneof(...bad) });
}

function validArbitrary(doc: OpenApiDocument, schema: Schema | undefined, o: ArbOptions, name: string): fc.Arbitrary<unknown> {
  const s = deref(doc, schema);
  const depth = o.depth ?? 0;
  if (depth > 6) return fc.constant(exampleOf(doc, s, name));
  const inner = { ...o, depth: depth + 1 };
  if ("const" in s) return fc.constant(s.const);
  if (s.enum) return fc.constantFrom(...s.enum);
  if (s.anyOf || s.oneOf) return fc.oneof(...(s.anyOf ?? s.oneOf).map((a: Schema) => arbitraryOf(doc, a, inner, name)));
  const type = Array.isArray(s.type) ? s.type.find((t: string) => t !== "null") : s.type;
  switch (type) {
    case "object": {
      const props = s.properties ?? {};
      const keys = Object.keys(props);
      if (keys.length === 0) {
        // A map: its keys and values follow patternProperties or additionalProperties when they say how.
        const [pattern, valueSchema] = Object.entries((s.patternProperties ?? {}) as Record<string, Schema>)[0] ?? [null, typeof s.additionalProperties === "object" ? s.additionalProperties : null];
        const value = valueSchema ? arbitraryOf(doc, valueSchema, inner, name) : fc.jsonValue({ maxDepth: 2 });
        const key = pattern && pattern !== "^(.*)$" && pattern !== "^.*$" ? fc.stringMatching(new RegExp(pattern)).filter((k) => k.length <= 40) : fc.string({ minLength: 1, maxLength: 10 });
        return fc.dictionary(key, value, { maxKeys: 4 });
      }
      const record = fc.record(Object.fromEntries(keys.map((k) => [k, arbitraryOf(doc, props[k], inner, k)])), { requiredKeys: s.required ?? [] });
      if (o.pure) return s.minProperties ? record.filter((r) => Object.keys(r as object).length >= s.minProperties) : record;
      // Now and then an unknown field (refused, never dropped) or a missing required one.
      return fc.tuple(record, fc.nat(30), fc.constantFrom("unknown_field", "__proto__", "constructor", "org_id", "id")).map(([r, dice, extra]) => {
        const out = { ...(r as Record<string, unknown>) };
        if (dice === 0) Object.defineProperty(out, extra, { value: "z", enumerable: true, configurable: true, writable: true });
        if (dice === 1 && s.required?.length) delete out[s.required[0]];
        return out;
      });
    }
    case "array": {
      const items = arbitraryOf(doc, s.items, inner, name);
      const size = { minLength: s.minItems ?? 0, maxLength: Math.min(s.maxItems ?? Infinity, (s.minItems ?? 0) + 4) };
      return s.uniqueItems ? fc.uniqueArray(items, { ...size, selector: (v) => JSON.stringify(v) }) : fc.array(items, size);
    }
    case "string":
      // Plain addresses: "email" leaves the exact grammar to the implementation, and RFC 5322's corners are not what this tests.
      if (s.format === "email" || isEmailName(name)) return fc.stringMatching(/^[a-z0-9]{1,12}(\.[a-z0-9]{1,8})?$/).map((local) => `${local}@example.test`);
      if (s.format === "uri" || s.format === "url" || isUrlName(name)) {
        const fitting = LOOPBACK_URLS.filter((u) => !s.pattern || new RegExp(s.pattern).test(u));
        if (fitting.length) return fc.constantFrom(...fitting);
      }
      if (s.format === "date-time") return fc.date({ min: new Date("1970-01-01"), max: new Date("2100-01-01"), noInvalidDate: true }).map((d) => d.toISOString());
      if (isHostName(name) && !s.pattern) return fc.constantFrom("127.0.0.1", "localhost", "::1");
      if (s.format === "date") return fc.date({ min: new Date("1970-01-01"), max: new Date("2100-01-01"), noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10));
      if (s.pattern) return fc.oneof(fc.constant(stringExample(s, name)), patternArbitrary(s, name));
      return sized(fc.string({ minLength: s.minLength ?? 0, maxLength: Math.min(s.maxLength ?? Infinity, (s.minLength ?? 0) + 30) }), s);
    case "integer": {
      const edges = [s.minimum, s.maximum].filter((x) => x !== undefined);
      const any = fc.integer({ min: s.minimum ?? -1000, max: s.maximum ?? 100_000 });
      return edges.length ? fc.oneof(any, fc.constantFrom(...edges)) : any;
    }
    case "number":
      return fc.double({ min: s.minimum ?? -1e6, max: s.maximum ?? 1e6, noNaN: true, noDefaultInfinity: true });
    case "boolean":
      return fc.boolean();
    case "null":
      return fc.constant(null);
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

/**
 * Strings of a pattern: fast-check's generator on the pattern without its lookaheads, kept when the whole pattern
 * (lookaheads, lengths) accepts them and otherwise replaced by the schema's example. Never a filter: a filter that
 * rarely passes (a host-name pattern behind a length lookahead) makes fast-check retry for ever.
 */
function patternArbitrary(s: Schema, name: string): fc.Arbitrary<string> {
  const re = new RegExp(s.pattern);
  const fits = (v: string) => re.test(v) && v.length >= (s.minLength ?? 0) && v.length <= (s.maxLength ?? Infinity);
  const example = stringExample(s, name);
  const plain = String(s.pattern).replace(/\(\?[=!](?:[^()]|\([^()]*\))*\)/g, "");
  const source = /\(\?[=!<]/.test(plain) ? fc.string({ minLength: Math.max(1, s.minLength ?? 0), maxLength: Math.min(s.maxLength ?? 30, 30), unit: "grapheme" }) : fc.stringMatching(new RegExp(plain));
  return source.map((v) => (fits(v) ? v : example));
}

/** Lengths count UTF-16 units (as JSON Schema's validators here do); graphemes can be two. Cut or padded, never filtered. */
const sized = (arb: fc.Arbitrary<string>, s: Schema) =>
  arb.map((v) => {
    const max = s.maxLength ?? Infinity;
    const cut = v.length > max ? v.slice(0, max).replace(/[\ud800-\udbff]$/, "") : v;
    return cut.length >= (s.minLength ?? 0) ? cut : cut.padEnd(s.minLength ?? 0, "a");
  });

/** A value the schema accepts and nothing else: the positive half of the fuzz test. */
export const validValueArbitrary = (doc: OpenApiDocument, schema: Schema | undefined, name = "") => validArbitrary(doc, schema, { invalid: 0, pure: true }, name);

/** A query-string value for a parameter: mostly what it accepts, sometimes not. */
export function queryValueArbitrary(doc: OpenApiDocument, schema: Schema | undefined, name: string): fc.Arbitrary<string> {
  const s = deref(doc, schema);
  const valid = validArbitrary(doc, s, { invalid: 0 }, name).map((v) => (Array.isArray(v) ? v.join(",") : typeof v === "object" ? JSON.stringify(v) : String(v)).slice(0, 2000));
  const bad = fc.oneof(
    fc.constantFrom("", "abc", "-1", "0", "101", "1e999", "0x10", "9".repeat(400), "true", "null", "[]", "%", "\u0000", "2026-13-45T99:99:99Z"),
    fc.string({ unit: "binary", maxLength: 20 }),
  );
  return fc.oneof({ weight: 3, arbitrary: valid }, { weight: 1, arbitrary: bad });
}

export type BodyKind = "json" | "malformed" | "oversized" | "oversized-chunked" | "wrong-content-type" | "empty" | "deep";

export interface FuzzRequest {
  method: string;
  path: string;
  query: [string, string][];
  headers: Record<string, string>;
  bodyKind: BodyKind | null;
  body: unknown;
}

export interface RequestContext {
  /** Real ids to put in path parameters besides generated ones: this organisation's and another one's. */
  ids: { own: string[]; foreign: string[] };
  /** Whether own ids may be used (not for operations that reach out: run-now, test-send, DNS verify). */
  ownIds: boolean;
  auth: { key: string };
}

const pathValue = (doc: OpenApiDocument, p: Parameter, ctx: RequestContext): fc.Arbitrary<string> => {
  const generated = validArbitrary(doc, p.schema, { invalid: 0 }, p.name).map(String);
  const choices: fc.WeightedArbitrary<string>[] = [
    { weight: 5, arbitrary: generated },
    // Bun refuses request lines over 16 KiB itself (a bare 431), before any route: the long ones stay below that.
    { weight: 2, arbitrary: fc.oneof(nastyString.map((v) => String(v).slice(0, 2000)), fc.constantFrom("0", "-1", "mon_", "..", "%2e%2e", "a/b", "x".repeat(65))) },
  ];
  if (ctx.ids.foreign.length) choices.push({ weight: 3, arbitrary: fc.constantFrom(...ctx.ids.foreign) });
  if (ctx.ownIds && ctx.ids.own.length) choices.push({ weight: 3, arbitrary: fc.constantFrom(...ctx.ids.own) });
  return fc.oneof(...choices);
};

/** One request to an operation: parameters, credentials and a body that is often valid and often not. */
export function requestArbitrary(doc: OpenApiDocument, e: Endpoint, ctx: RequestContext): fc.Arbitrary<FuzzRequest> {
  const params = e.op.parameters ?? [];
  const pathParams = params.filter((p) => p.in === "path");
  const queryParams = params.filter((p) => p.in === "query");
  const bodySchema = bodySchemaOf(doc, e.op);
  const pathArb = fc.tuple(...pathParams.map((p) => pathValue(doc, p, ctx))).map((values) =>
    pathParams.reduce((path, p, i) => path.replace(`{${p.name}}`, encodeURIComponent(wellFormed(values[i]!))), e.path),
  );
  const queryArb = fc
    .tuple(
      ...queryParams.map((p) => fc.option(queryValueArbitrary(doc, p.schema, p.name), { nil: undefined, freq: p.required ? 20 : 2 }).map((v) => (v === undefined ? null : ([p.name, v] as [string, string])))),
      fc.option(fc.constantFrom<[string, string]>(["unknown", "1"], ["limit", "101"], ["page", "0"], ["page", "99999999"]), { freq: 6 }),
    )
    .map((pairs) => pairs.filter((x): x is [string, string] => x !== null));
  const authArb = fc.oneof(
    { weight: 17, arbitrary: fc.constant({ authorization: `Bearer ${ctx.auth.key}` }) },
    { weight: 1, arbitrary: fc.constant({}) },
    { weight: 1, arbitrary: fc.constantFrom({ authorization: "Bearer wp_live_guess" }, { authorization: "Basic Zm9vOmJhcg==" }, { authorization: `Bearer ${ctx.auth.key}x` }) },
    { weight: 1, arbitrary: fc.constantFrom("org_nonexistent", "../", "").map((v) => ({ authorization: `Bearer ${ctx.auth.key}`, "x-org-id": v })) },
  );
  const bodyArb: fc.Arbitrary<{ bodyKind: BodyKind | null; body: unknown }> = bodySchema
    ? fc.oneof(
        { weight: 14, arbitrary: arbitraryOf(doc, bodySchema, { invalid: 0.12 }).map((body) => ({ bodyKind: "json" as const, body })) },
        { weight: 4, arbitrary: fc.constant(exampleOf(doc, bodySchema)).map((body) => ({ bodyKind: "json" as const, body })) },
        { weight: 1, arbitrary: fc.constantFrom<BodyKind>("malformed", "oversized", "oversized-chunked", "wrong-content-type", "empty", "deep").map((bodyKind) => ({ bodyKind, body: exampleOf(doc, bodySchema) })) },
        { weight: 1, arbitrary: wrongType.map((body) => ({ bodyKind: "json" as const, body })) },
      )
    : fc.oneof({ weight: 9, arbitrary: fc.constant({ bodyKind: null, body: undefined }) }, { weight: 1, arbitrary: fc.constant({ bodyKind: "json" as const, body: { unexpected: true } }) });
  return fc.tuple(pathArb, queryArb, authArb, bodyArb).map(([path, query, headers, b]) => ({ method: e.method, path, query, headers: { ...headers }, ...b }));
}

/** Turns a generated request into fetch() arguments; `maxBodyBytes` sizes the oversized bodies. */
export function toFetch(baseUrl: string, r: FuzzRequest, maxBodyBytes: number): [string, RequestInit] {
  const qs = r.query.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(wellFormed(v))}`).join("&");
  const url = `${baseUrl}${r.path}${qs ? `?${qs}` : ""}`;
  const headers: Record<string, string> = { ...r.headers };
  let body: BodyInit | undefined;
  const json = () => JSON.stringify(r.body ?? null);
  switch (r.method === "GET" || r.method === "HEAD" ? null : r.bodyKind) {
    case null:
      break;
    case "json":
      headers["content-type"] = "application/json";
      body = json();
      break;
    case "malformed":
      headers["content-type"] = "application/json";
      body = json().slice(0, Math.max(1, Math.floor(json().length / 2))) + "\u0000{";
      break;
    case "oversized":
      headers["content-type"] = "application/json";
      body = JSON.stringify({ padding: "p".repeat(maxBodyBytes + 10) });
      break;
    case "oversized-chunked": {
      headers["content-type"] = "application/json";
      const chunk = new TextEncoder().encode("p".repeat(64 * 1024));
      let sent = 0;
      body = new ReadableStream<Uint8Array>({
        pull(c) {
          if (sent > maxBodyBytes + chunk.length) return c.close();
          sent += chunk.length;
          c.enqueue(chunk);
        },
      });
      break;
    }
    case "wrong-content-type":
      headers["content-type"] = "text/plain";
      body = json();
      break;
    case "empty":
      headers["content-type"] = "application/json";
      body = "";
      break;
    case "deep":
      headers["content-type"] = "application/json";
      body = "[".repeat(20_000) + "]".repeat(20_000);
      break;
  }
  return [url, { method: r.method, headers, body, redirect: "manual", ...(body instanceof ReadableStream ? { duplex: "half" } : {}) } as RequestInit];
}
