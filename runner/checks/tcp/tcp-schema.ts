import { Type, type Static } from "@sinclair/typebox";
import { hostSchema, portSchema } from "../../../schemas/checks/schema-parts.ts";

export const tcpConfigSchema = Type.Object({ host: hostSchema, port: portSchema }, { additionalProperties: false });
export type TcpConfig = Static<typeof tcpConfigSchema>;
