// Compatibility: the registry is schemas/channel-types.ts (P5 deletes this file).
export { channelConfigSchemas } from "../../schemas/channel-types.ts";
