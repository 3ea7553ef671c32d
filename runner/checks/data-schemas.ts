// Compatibility: the registry is schemas/check-types.ts (P5 deletes this file).
export { dataFieldNames, dataSchemas } from "../../schemas/check-types.ts";
