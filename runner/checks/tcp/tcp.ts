import { defineCheck } from "../shared/define-check.ts";
import { openConnection } from "../shared/open-connection.ts";
import { tcpSpec } from "./tcp-schema.ts";

export const tcpCheck = defineCheck(tcpSpec, {
  async probe(config, ctx) {
    const conn = await openConnection({ host: config.host, port: config.port, guard: ctx.guardOptions });
    conn.socket.destroy();
    ctx.data.dns_ms = conn.dns_ms;
    ctx.data.connect_ms = conn.connect_ms;
    ctx.data.ip = conn.address;
    return { status: "up" };
  },
});
