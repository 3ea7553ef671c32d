export * from "./types.ts";
export * from "./ingest.ts";
export * from "./uptime.ts";
export * from "./checks.ts";
export * from "./retention.ts";
export * from "./rollups.ts";
export { HISTOGRAM_BOUNDS, histogramQuantile } from "./histogram.ts";
export { parseResultId } from "./result-id.ts";
export { storageMode, type StorageMode } from "../../db/results/storage-mode.ts";
