import Ajv2020, { type ValidateFunction } from "ajv/dist/2020.js";
import { isDate, isDateTime } from "../../schemas/formats.ts";
import type { OpenApiDocument, Operation } from "./openapi-fuzz.ts";

/**
 * What Schemathesis checks of an answer, against our own document: the status is declared, the
 * content type is one the status declares, and a JSON body matches the declared schema (ajv, JSON
 * Schema 2020-12 as OpenAPI 3.1 uses; the server's own date formats).
 */
export function responseChecker(doc: OpenApiDocument) {
  const ajv = new Ajv2020({ strict: false, allErrors: false, logger: false, validateFormats: true });
  ajv.addFormat("date-time", isDateTime);
  ajv.addFormat("date", isDate);
  ajv.addFormat("email", (v: string) => /^[^\s@]+@[^\s@]+$/.test(v));
  ajv.addFormat("uri", (v: string) => URL.canParse(v));
  for (const loose of ["binary", "password", "hostname", "uuid", "ipv4", "ipv6", "regex", "time", "duration"]) ajv.addFormat(loose, true);
  ajv.addSchema({ $id: "wp:doc", components: doc.components }, "wp:doc");
  const compiled = new Map<string, ValidateFunction | null>();

  /** Refs point into the document: `#/components/schemas/X` → `wp:doc#/components/schemas/X`. */
  const rebase = (schema: unknown): unknown =>
    JSON.parse(JSON.stringify(schema), (k, v) => (k === "$ref" && typeof v === "string" && v.startsWith("#/") ? `wp:doc${v}` : v));

  function validator(key: string, schema: unknown): ValidateFunction | null {
    if (!compiled.has(key)) compiled.set(key, schema ? ajv.compile(rebase(schema) as object) : null);
    return compiled.get(key)!;
  }

  /** Why the answer breaks the document, or null. */
  return function check(opKey: string, op: Operation, res: { status: number; contentType: string; text: string; streamed?: boolean }): string | null {
    const declared = op.responses[String(res.status)];
    if (!declared) return `status ${res.status} is not declared (${Object.keys(op.responses).join(", ")})`;
    const content = (declared as { content?: Record<string, { schema?: unknown }> }).content;
    if (!content || res.status === 204 || res.status === 304) return null;
    const media = res.contentType.split(";")[0]!.trim().toLowerCase();
    if (!media) return res.text ? `status ${res.status} has a body without a content type` : null;
    if (!(media in content)) return `content type ${media} is not declared for ${res.status} (${Object.keys(content).join(", ")})`;
    if (media !== "application/json" || res.streamed) return null;
    let body: unknown;
    try {
      body = JSON.parse(res.text);
    } catch {
      return `status ${res.status} says JSON but the body is not`;
    }
    const validate = validator(`${opKey} ${res.status}`, content[media]!.schema);
    if (validate && !validate(body)) {
      const e = validate.errors?.[0];
      return `body of ${res.status} does not match its schema: ${e?.instancePath || "/"} ${e?.message} ${JSON.stringify(e?.params)}`;
    }
    return null;
  };
}
