import type { Logger } from "../log.ts";
import { createMemoryBus } from "./memory-bus.ts";
import { connectNatsBus } from "./nats-bus.ts";
import type { Bus, BusOptions } from "./types.ts";

export interface CreateBusOptions extends BusOptions {
  /** NATS_URL; unset gives the in-process bus (all-in-one mode). */
  natsUrl?: string;
  /** NATS_REPLICAS: stream replicas on a NATS cluster. */
  replicas?: number;
  log: Logger;
}

/** The bus of this process with its streams in place: NATS JetStream when a URL is given, else in-process. */
export async function createBus({ natsUrl, replicas, ...opts }: CreateBusOptions): Promise<Bus> {
  const bus = natsUrl ? await connectNatsBus({ ...opts, url: natsUrl, replicas }) : createMemoryBus(opts);
  await bus.ensureTopology();
  return bus;
}
