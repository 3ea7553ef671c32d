/** Test support for channel tests: sample events, a loopback context, and an HTTP receiver. Not used in production. */
import { createChannelContext, defaultEndpoints } from "./context.ts";
import type { AlertEvent, AlertEventKind, ChannelContext, ChannelEndpoints, Clock } from "./types.ts";

const TEST_NOW = new Date("2026-11-22T10:15:00.000Z");
const testClock: Clock = { now: () => TEST_NOW, sleep: (ms) => new Promise((r) => setTimeout(r, ms)) };

export function sampleEvent(kind: AlertEventKind = "alert", overrides: Partial<AlertEvent> = {}): AlertEvent {
  const dedupKey = "rule_7:mon_42:eu-west:3";
  return {
    kind,
    dedupKey,
    idempotencyKey: `${dedupKey}:ch_9:${kind}:1`,
    rule: { id: "rule_7", name: "Checkout API down" },
    monitor: { id: "mon_42", name: "Checkout API", type: "http", target: "https://shop.example/api/health" },
    region: "eu-west",
    regionName: "eu-west",
    status: kind === "recovery" ? "up" : "down",
    condition: "status is down or timeout",
    result: kind === "recovery" ? { duration_ms: 182 } : { duration_ms: 5012, error: "connect ECONNREFUSED" },
    startedAt: "2026-11-22T10:02:30.000Z",
    occurredAt: TEST_NOW.toISOString(),
    org: { id: "org_1", name: "Acme" },
    links: {
      monitor: "https://watchpost.example/monitors/mon_42",
      ackUrl: "https://watchpost.example/ack?token=t0k",
      unsubscribe: "https://watchpost.example/unsubscribe?token=u1",
    },
    ...overrides,
  };
}

/** Loopback-friendly context: private addresses allowed, fixed clock, short timeout. */
export function testContext(overrides: Partial<ChannelContext> = {}): ChannelContext {
  const base = createChannelContext({ publicBaseUrl: "https://watchpost.example", allowPrivateAddresses: true, timeoutMs: 3000, clock: testClock });
  return { ...base, ...overrides };
}

/** What runChannelContract needs from a receiver, whatever protocol it speaks. */
export interface ContractReceiver {
  /** Context overrides that point the channel at this receiver (base URLs, SMTP settings). */
  ctx: Partial<ChannelContext>;
  /** Every message received so far as text (HTTP: method, path and body; SMTP: subject and text part). */
  readonly messages: string[];
  /** Makes the next message fail as retryable (HTTP 500) or permanent (HTTP 400); returns that status. */
  failNext(kind: "retryable" | "permanent"): number;
  close(): Promise<void>;
}

export interface ReceivedRequest {
  method: string;
  /** Path and query string. */
  path: string;
  headers: Headers;
  body: string;
  json(): any;
}

export interface HttpReceiver extends ContractReceiver {
  url: string;
  requests: ReceivedRequest[];
  last(): ReceivedRequest;
  /** Queues one custom answer (e.g. a 429 with Retry-After) for the next request. */
  respondNext(make: (req: ReceivedRequest) => Response | Promise<Response>): void;
}

export interface HttpReceiverOptions {
  /** Answer when nothing is queued; the default is 200 "ok". */
  ok?: (req: ReceivedRequest) => Response;
  /** Base URLs to point at this receiver, for fixed-endpoint providers. */
  endpoints?: (url: string) => Partial<ChannelEndpoints>;
}

export async function startHttpReceiver(options: HttpReceiverOptions = {}): Promise<HttpReceiver> {
  const requests: ReceivedRequest[] = [];
  const queue: ((req: ReceivedRequest) => Response | Promise<Response>)[] = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      const u = new URL(req.url);
      const body = await req.text();
      const rec: ReceivedRequest = { method: req.method, path: u.pathname + u.search, headers: req.headers, body, json: () => JSON.parse(body) };
      requests.push(rec);
      const next = queue.shift();
      return next ? next(rec) : (options.ok?.(rec) ?? new Response("ok"));
    },
  });
  const url = `http://127.0.0.1:${server.port}`;
  return {
    url,
    requests,
    ctx: options.endpoints ? { endpoints: { ...defaultEndpoints, ...options.endpoints(url) } } : {},
    get messages() {
      return requests.map((r) => `${r.method} ${r.path}\n${r.body}`);
    },
    last() {
      const r = requests.at(-1);
      if (!r) throw new Error("the receiver has not received anything");
      return r;
    },
    respondNext: (make) => void queue.push(make),
    failNext(kind) {
      const status = kind === "retryable" ? 500 : 400;
      queue.push(() => new Response(`receiver refuses with ${status}`, { status }));
      return status;
    },
    close: async () => void (await server.stop(true)),
  };
}
