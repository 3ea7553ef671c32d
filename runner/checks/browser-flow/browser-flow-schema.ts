import { Type, type Static } from "@sinclair/typebox";
import { httpUrlSchema } from "../shared/schema-parts.ts";

/**
 * One step of a browser flow. Kept generic on purpose: the step palette
 * (/plugins/flow/components) defines each action's fields and validates them.
 */
export const browserFlowStepSchema = Type.Object(
  { action: Type.String({ minLength: 1, maxLength: 64, pattern: "^[a-z][a-z0-9_]*$" }) },
  { additionalProperties: true },
);

/** Browser Flow: a scripted sequence of steps. Runs on browser-capable runners, not on this engine. */
export const browserFlowConfigSchema = Type.Object(
  {
    url: httpUrlSchema,
    steps: Type.Array(browserFlowStepSchema, { minItems: 1, maxItems: 100 }),
    viewport: Type.Optional(
      Type.Object(
        { width: Type.Integer({ minimum: 320, maximum: 3840 }), height: Type.Integer({ minimum: 240, maximum: 2160 }) },
        { additionalProperties: false },
      ),
    ),
    degraded_above_ms: Type.Optional(Type.Integer({ minimum: 1, maximum: 600_000 })),
  },
  { additionalProperties: false },
);
export type BrowserFlowConfig = Static<typeof browserFlowConfigSchema>;
export type BrowserFlowStep = Static<typeof browserFlowStepSchema>;
