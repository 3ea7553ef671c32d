import { Type } from "@sinclair/typebox";
import { browserDataFields } from "../../../schemas/checks/browser-data-fields.ts";
import { dataObject, intField, nullable, textField } from "../../../schemas/checks/data-fields.ts";

/** One step's outcome in a flow result. */
export const flowStepOutcomeSchema = Type.Object(
  {
    index: Type.Integer({ minimum: 1, description: "Position of the step, from 1" }),
    action: Type.String({ description: "The step's action" }),
    name: Type.Union([Type.String(), Type.Null()], { description: "The step's name, when it has one" }),
    status: Type.Union([Type.Literal("passed"), Type.Literal("failed"), Type.Literal("skipped")], { description: "skipped: a step before it failed" }),
    duration_ms: Type.Union([Type.Number({ minimum: 0 }), Type.Null()], { description: "Time the step took, ms; null when skipped" }),
    error: Type.Union([Type.String(), Type.Null()], { description: "Why the step failed" }),
    detail: Type.Union([Type.String(), Type.Null()], { description: "What the step saw: the extracted value (cut to 200 characters), the screenshot name, the status asserted" }),
  },
  { additionalProperties: false, title: "BrowserFlowStepOutcome" },
);

export const browserFlowDataSchema = dataObject("BrowserFlowData", {
  ...browserDataFields,
  steps: nullable(Type.Array(flowStepOutcomeSchema), "Every step in order with its outcome and duration"),
  steps_total: intField("Steps in the flow"),
  steps_passed: intField("Steps that passed"),
  failed_step: intField("Position (from 1) of the step that failed; null when every step passed"),
  failed_step_action: textField("Action of the step that failed"),
  failed_step_name: textField("Name of the step that failed, when it has one"),
});
