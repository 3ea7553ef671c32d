import { Kind, type TObject, type TSchema } from "@sinclair/typebox";
import { actionOf, flowStepSchemas } from "../../../runner/checks/browser-flow/browser-flow-schema.ts";

/** A value's type and constraints, as the palette shows them (JSON Schema names). */
interface PaletteType {
  type: "string" | "integer" | "number" | "boolean" | "array" | "one_of";
  enum?: (string | number | boolean)[];
  min_length?: number;
  max_length?: number;
  pattern?: string;
  minimum?: number;
  maximum?: number;
  min_items?: number;
  max_items?: number;
  /** Type of each element of an array. */
  items?: PaletteType;
  /** Alternatives, when a value may take several shapes (e.g. 200 or "2xx"). */
  one_of?: PaletteType[];
}

export interface PaletteField extends PaletteType {
  name: string;
  required: boolean;
  description: string;
  default?: unknown;
  example?: unknown;
}

export interface PaletteComponent {
  action: string;
  name: string;
  description: string;
  fields: PaletteField[];
}

type Loose = TSchema & Record<string, unknown>;

/** The palette form of one schema; throws for a construct the palette cannot describe, so a new step type cannot slip through undescribed. */
function paletteType(schema: TSchema): PaletteType {
  const s = schema as Loose;
  const kind = s[Kind] as string;
  if (kind === "Union") {
    const members = (s.anyOf as Loose[]) ?? [];
    if (members.every((m) => m[Kind] === "Literal")) {
      const values = members.map((m) => m.const as string | number | boolean);
      return { type: typeof values[0] === "number" ? "number" : typeof values[0] === "boolean" ? "boolean" : "string", enum: values };
    }
    return { type: "one_of", one_of: members.map(paletteType) };
  }
  if (kind === "Literal") return { type: typeof s.const === "number" ? "number" : "string", enum: [s.const as string] };
  const out: PaletteType = { type: "string" };
  if (kind === "String") out.type = "string";
  else if (kind === "Integer") out.type = "integer";
  else if (kind === "Number") out.type = "number";
  else if (kind === "Boolean") out.type = "boolean";
  else if (kind === "Array") {
    out.type = "array";
    out.items = paletteType(s.items as TSchema);
  } else throw new Error(`the flow palette cannot describe a ${kind} field`);
  const constraints: [keyof PaletteType, string][] = [
    ["min_length", "minLength"],
    ["max_length", "maxLength"],
    ["pattern", "pattern"],
    ["minimum", "minimum"],
    ["maximum", "maximum"],
    ["min_items", "minItems"],
    ["max_items", "maxItems"],
  ];
  for (const [to, from] of constraints) if (s[from] !== undefined) (out as unknown as Record<string, unknown>)[to] = s[from];
  return out;
}

/** One step type as the palette lists it, read from its schema. */
export function paletteComponent(schema: TObject): PaletteComponent {
  const required = new Set(schema.required ?? []);
  const fields = Object.entries(schema.properties)
    .filter(([name]) => name !== "action")
    .map(([name, prop]) => {
      const p = prop as Loose;
      const field: PaletteField = { name, required: required.has(name), description: (p.description as string | undefined) ?? "", ...paletteType(prop) };
      if (p.default !== undefined) field.default = p.default;
      if (Array.isArray(p.examples) && p.examples.length > 0) field.example = p.examples[0];
      return field;
    });
  return { action: actionOf(schema), name: schema.title ?? actionOf(schema), description: schema.description ?? "", fields };
}

/** GET /plugins/flow/components: every step type, generated from the schemas the validator uses. */
export function flowPalette(): PaletteComponent[] {
  return flowStepSchemas.map((s) => paletteComponent(s as unknown as TObject));
}
