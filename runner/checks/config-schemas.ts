// Compatibility: the registry is schemas/check-types.ts (P5 deletes this file).
export { configSchemas, monitorCheckSchema } from "../../schemas/check-types.ts";
export type { CheckConfig, ConfigSchemas, MonitorCheck } from "../../schemas/check-types.ts";
