import { defineCheck } from "../shared/define-check.ts";
import { openConnection } from "../shared/open-connection.ts";
import { tcpSpec } from "./tcp-schema.ts";

export const tcpCheck = defineCheck(tcpSpec, {
  async probe(config, ctx) {
    const conn = await openConnection({ host: config.host, port: config.port, guard: ctx.guardOptions, measurements: ctx.data, progress: ctx });
    conn.socket.destroy();
    return { status: "up" };
  },
});
