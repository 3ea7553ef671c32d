import { connect } from "@nats-io/transport-node";
import { jetstreamManager } from "@nats-io/jetstream";
import { runBusSuite } from "./bus.case.ts";
import { connectNatsBus } from "./nats-bus.ts";

const url = "nats://127.0.0.1:4222";

runBusSuite("nats bus", (opts) => connectNatsBus({ ...opts, url }), {
  async cleanup(prefixes) {
    const nc = await connect({ servers: url });
    const jsm = await jetstreamManager(nc);
    const names = prefixes.flatMap((p) => [`${p}JOBS`, `${p}RESULTS`]);
    await Promise.all(names.map((n) => jsm.streams.delete(n).catch(() => false)));
    await nc.close();
  },
});
