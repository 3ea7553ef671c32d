import { describe, expect, it } from "bun:test";
import { type TObject, Type } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { browserFlowConfigSchema, browserFlowStepSchema, flowStepSchemas } from "../../../runner/checks/browser-flow/browser-flow-schema.ts";
import { flowActions } from "../../../runner/checks/browser-flow/flow-actions.ts";
import { flowPalette, type PaletteField, paletteComponent } from "./flow-palette.ts";

const palette = flowPalette();
const validStep = (action: string, fields: PaletteField[], only: "required" | "all") =>
  Object.fromEntries([["action", action], ...fields.filter((f) => only === "all" || f.required).map((f) => [f.name, f.example ?? f.default ?? f.enum?.[0]])]);
const accepts = (step: Record<string, unknown>) => Value.Check(browserFlowConfigSchema, { url: "https://example.com/", steps: [step] });

describe("the flow step palette", () => {
  it("lists exactly the step types the validator accepts and the runner implements, in order", () => {
    const unionActions = (browserFlowStepSchema.anyOf as TObject[]).map((s) => (s.properties.action as unknown as { const: string }).const);
    expect(palette.map((c) => c.action)).toEqual(unionActions);
    expect(new Set(unionActions)).toEqual(new Set(Object.keys(flowActions)));
    for (const action of ["navigate", "click", "fill", "select", "press", "wait_for_selector", "wait_for_text", "wait_for_url", "assert_text", "assert_visible", "assert_url", "assert_title", "assert_status", "extract_text", "screenshot", "set_viewport", "set_header", "set_cookie"]) {
      expect(unionActions).toContain(action);
    }
  });

  it("describes every field of every step with the schema's own type and constraints", () => {
    for (const [i, schema] of flowStepSchemas.entries()) {
      const component = palette[i]!;
      const props = Object.entries((schema as unknown as TObject).properties).filter(([name]) => name !== "action");
      expect(component.fields.map((f) => f.name)).toEqual(props.map(([name]) => name));
      expect(component.name.length).toBeGreaterThan(2);
      expect(component.description.length).toBeGreaterThan(10);
      for (const [name, prop] of props) {
        const field = component.fields.find((f) => f.name === name)!;
        const p = prop as Record<string, unknown>;
        expect(field.required).toBe(((schema as unknown as TObject).required ?? []).includes(name));
        expect(field.description).toBe(p.description as string);
        expect(field.description.length).toBeGreaterThan(3);
        for (const [from, to] of [["minLength", "min_length"], ["maxLength", "max_length"], ["pattern", "pattern"], ["minimum", "minimum"], ["maximum", "maximum"], ["minItems", "min_items"], ["maxItems", "max_items"]] as const) {
          expect(field[to as keyof PaletteField]).toEqual(p[from]);
        }
        expect(field.default).toEqual(p.default);
      }
    }
  });

  it("builds, from its own metadata, steps the validator accepts, and the validator refuses each without a required field", () => {
    for (const c of palette) {
      const minimal = validStep(c.action, c.fields, "required");
      const full = validStep(c.action, c.fields, "all");
      expect(accepts(minimal) ? "ok" : `${c.action} minimal ${JSON.stringify(minimal)} refused`).toBe("ok");
      expect(accepts(full) ? "ok" : `${c.action} full ${JSON.stringify(full)} refused`).toBe("ok");
      for (const f of c.fields.filter((x) => x.required)) {
        const { [f.name]: _dropped, ...without } = minimal;
        expect(accepts(without) ? `${c.action} accepted without ${f.name}` : "ok").toBe("ok");
      }
      expect(accepts({ ...minimal, not_in_palette: 1 }) ? `${c.action} accepted an unknown field` : "ok").toBe("ok");
      for (const f of c.fields.filter((x) => x.enum)) expect(accepts({ ...minimal, [f.name]: "not-a-listed-value" })).toBe(false);
    }
  });

  it("follows a change of the schema: the palette is read from it, not written beside it", () => {
    const changed = paletteComponent(
      Type.Object({ action: Type.Literal("hover"), selector: Type.String({ minLength: 2, description: "what" }), delay: Type.Optional(Type.Integer({ maximum: 9, description: "ms" })) }, { title: "Hover", description: "Hover an element" }),
    );
    expect(changed).toEqual({
      action: "hover",
      name: "Hover",
      description: "Hover an element",
      fields: [
        { name: "selector", required: true, description: "what", type: "string", min_length: 2 },
        { name: "delay", required: false, description: "ms", type: "integer", maximum: 9 },
      ],
    });
    expect(() => paletteComponent(Type.Object({ action: Type.Literal("x"), any: Type.Any() }))).toThrow("cannot describe");
  });

  it("shows a union of literals as an enum, and status matchers as one of two shapes", () => {
    const click = palette.find((c) => c.action === "click")!;
    expect(click.fields.find((f) => f.name === "button")).toMatchObject({ type: "string", enum: ["left", "right", "middle"], default: "left", required: false });
    const status = palette.find((c) => c.action === "assert_status")!.fields.find((f) => f.name === "expected")!;
    expect(status).toMatchObject({ type: "array", min_items: 1, items: { type: "one_of" } });
    expect(status.items!.one_of!.map((o) => o.type)).toEqual(["integer", "string"]);
  });
});
