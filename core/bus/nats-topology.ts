import {
  AckPolicy,
  DeliverPolicy,
  DiscardPolicy,
  JetStreamApiError,
  RetentionPolicy,
  StorageType,
  type Consumer,
  type JetStreamClient,
  type JetStreamManager,
  type StreamConfig,
} from "@nats-io/jetstream";
import type { Topology } from "./topology.ts";

const ms = (n: number) => n * 1_000_000;

/** 2.10+ refuses add() of an existing consumer with another config. */
const CONSUMER_EXISTS = 10148;

type StreamSpec = Partial<StreamConfig> & { name: string };

export function streamConfigs(topo: Topology, replicas: number): StreamSpec[] {
  const common = { storage: StorageType.File, discard: DiscardPolicy.Old, num_replicas: replicas };
  return [
    {
      ...common,
      name: topo.jobsStream,
      subjects: [`${topo.prefix}jobs.>`],
      retention: RetentionPolicy.Workqueue,
      max_age: ms(topo.jobs.maxAgeMs),
      duplicate_window: ms(topo.jobs.duplicateWindowMs),
    },
    {
      ...common,
      name: topo.resultsStream,
      subjects: [`${topo.prefix}results.>`],
      retention: RetentionPolicy.Limits,
      max_age: ms(topo.results.maxAgeMs),
      duplicate_window: ms(topo.results.duplicateWindowMs),
    },
  ];
}

/**
 * Creates the stream, or updates it when it exists with another config. Safe to race: two
 * creations at once can fail with "subjects overlap" (2.9) although the stream now exists.
 */
export async function ensureStream(jsm: JetStreamManager, cfg: StreamSpec): Promise<void> {
  try {
    await jsm.streams.add(cfg);
  } catch (err) {
    const exists = await jsm.streams.info(cfg.name).then(
      () => true,
      () => false,
    );
    if (!exists) throw err;
    await jsm.streams.update(cfg.name, cfg);
  }
}

export interface ConsumerSpec {
  stream: string;
  name: string;
  filter: string;
  ackWaitMs: number;
  /** 0 = unlimited. */
  maxDeliveries: number;
}

/** Creates or updates a durable pull consumer; caches the handle per spec for this connection. */
export class ConsumerRegistry {
  private readonly cache = new Map<string, Promise<Consumer>>();

  constructor(
    private readonly js: JetStreamClient,
    private readonly jsm: JetStreamManager,
  ) {}

  get(spec: ConsumerSpec): Promise<Consumer> {
    const key = JSON.stringify(spec);
    let p = this.cache.get(key);
    if (!p) {
      p = this.create(spec);
      p.catch(() => this.cache.delete(key));
      this.cache.set(key, p);
    }
    return p;
  }

  /** Forget cached handles (after a consumer was deleted or a pull failed). */
  forget(stream: string, name: string): void {
    for (const key of this.cache.keys()) {
      const spec = JSON.parse(key) as ConsumerSpec;
      if (spec.stream === stream && spec.name === name) this.cache.delete(key);
    }
  }

  private async create(spec: ConsumerSpec): Promise<Consumer> {
    const cfg = {
      durable_name: spec.name,
      filter_subject: spec.filter,
      ack_policy: AckPolicy.Explicit,
      deliver_policy: DeliverPolicy.All,
      ack_wait: ms(spec.ackWaitMs),
      max_deliver: spec.maxDeliveries > 0 ? spec.maxDeliveries : -1,
      // The default (1000) would cap in-flight jobs per region and results per durable.
      max_ack_pending: -1,
    };
    try {
      await this.jsm.consumers.add(spec.stream, cfg);
    } catch (err) {
      if (!(err instanceof JetStreamApiError && err.code === CONSUMER_EXISTS)) throw err;
      await this.jsm.consumers.update(spec.stream, spec.name, cfg);
    }
    return this.js.consumers.get(spec.stream, spec.name);
  }
}
