import { Elysia, t } from "elysia";
import { flowPalette } from "./flow-palette.ts";
import type { ApiDeps } from "../../context.ts";
import { authPlugin } from "../../middleware/auth.ts";
import { Obj, PaginationQuery, paginated, toPage, Int } from "../../schemas/common.ts";

const Scalar = t.Union([t.String(), t.Number(), t.Boolean()]);
const typeFields = {
  type: t.Union([t.Literal("string"), t.Literal("integer"), t.Literal("number"), t.Literal("boolean"), t.Literal("array"), t.Literal("one_of")], {
    description: "JSON type of the value; one_of: one of several shapes (see one_of)",
  }),
  enum: t.Optional(t.Array(Scalar, { description: "The only values allowed" })),
  min_length: t.Optional(Int()),
  max_length: t.Optional(Int()),
  pattern: t.Optional(t.String({ description: "Regular expression the value must match" })),
  minimum: t.Optional(t.Number()),
  maximum: t.Optional(t.Number()),
  min_items: t.Optional(Int()),
  max_items: t.Optional(Int()),
  items: t.Optional(t.Object({}, { additionalProperties: true, description: "Type of each element (same shape as a field's type part)" })),
  one_of: t.Optional(t.Array(t.Object({}, { additionalProperties: true }), { description: "The shapes a value may take" })),
};
const PaletteField = t.Object(
  {
    name: t.String({ description: "Key in the step object" }),
    required: t.Boolean(),
    description: t.String(),
    default: t.Optional(t.Unknown({ description: "Value used when the field is left out" })),
    example: t.Optional(t.Unknown({ description: "A valid value" })),
    ...typeFields,
  },
  { title: "FlowStepField" },
);
const PaletteComponent = t.Object(
  {
    action: t.String({ description: "Value of the step's `action`" }),
    name: t.String({ description: "Display name" }),
    description: t.String(),
    fields: t.Array(PaletteField, { description: "Every field of the step besides action, with its type and constraints" }),
  },
  { title: "FlowStepComponent" },
);

/** Plugin metadata. Today: the browser-flow step palette, generated from the schema that validates flows. */
export const pluginRoutes = (_deps: ApiDeps) => {
  const palette = flowPalette();
  return new Elysia({ prefix: "/plugins", detail: { tags: ["monitors"] } })
    .use(authPlugin)
    .guard({ requires: "monitors:read" }, (app) =>
      app.get(
        "/flow/components",
        ({ query }) => toPage(palette.slice((query.page - 1) * query.limit, query.page * query.limit), palette.length, query.page, query.limit),
        {
          query: Obj(PaginationQuery),
          response: { 200: paginated(PaletteComponent) },
          detail: {
            summary: "The browser-flow step palette",
            description:
              "Every step type a browser_flow monitor's `steps` may use, with its fields' types and constraints. Generated from the same schema that validates monitors (BrowserFlowConfig), so a step this lists is accepted and one it does not list is refused. Flows are declarative: steps map to fixed browser actions; no JavaScript from the monitor runs.",
          },
        },
      ),
    );
};
