import { Type, type Static } from "@sinclair/typebox";
import { hostSchema } from "../../../schemas/checks/schema-parts.ts";

export const PING_DEFAULTS = { count: 3 } as const;

export const pingConfigSchema = Type.Object(
  {
    host: hostSchema,
    count: Type.Optional(Type.Integer({ minimum: 1, maximum: 10, default: PING_DEFAULTS.count })),
  },
  { additionalProperties: false },
);
export type PingConfig = Static<typeof pingConfigSchema>;
