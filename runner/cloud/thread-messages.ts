import type { LogLevel } from "../../core/log.ts";
import type { MetricsSnapshot } from "../../core/metrics.ts";

/** What a check thread needs to run a cloud worker; everything crosses as a structured clone, never env or argv. */
/** The cloud worker's settings, the same in every thread. */
export interface ThreadWorkerSettings {
  region: string;
  concurrency: number;
  allowPrivate: boolean;
  ipv6: boolean;
  ackWaitMs: number;
  heartbeatMs: number;
  shutdownGraceMs: number;
  version: string;
  /** The SecretBox keys (current, then previous ones): the thread decrypts the monitors' secrets itself. */
  secretKey: string;
  previousKeys: string[];
  logLevel: LogLevel;
}

export interface ThreadStart extends ThreadWorkerSettings {
  t: "start";
  /** 1-based, for logs. */
  index: number;
  workerId: string;
  /** Default labels of the main registry, so the thread's metrics merge into the same series. */
  metricLabels: Record<string, string>;
  /** The main thread's in-process bus, through a port; or NATS, which the thread connects to itself. */
  bus: { port: MessagePort } | { natsUrl: string; replicas?: number; prefix?: string };
  /** CHECK_THREADS_CPU_PROF: the thread samples its JavaScript until it stops and writes a .cpuprofile here. */
  cpuProfDir?: string;
}

export type ToThread = ThreadStart | { t: "metrics"; id: number } | { t: "stop" };

export type FromThread =
  | { t: "started"; workerId: string }
  | { t: "failed"; message: string }
  | { t: "log"; line: string }
  | { t: "metrics"; id: number; snapshot: MetricsSnapshot }
  | { t: "stopped" };
