import { describe, expect, it, spyOn } from "bun:test";
import v8 from "node:v8";
import { createMetrics } from "./metrics.ts";

describe("createMetrics", () => {
  it("scrapes the process metrics without walking the JavaScript heap", async () => {
    // Bun answers v8.getHeapSpaceStatistics() by counting every object on the heap: ~150 ms per million objects on
    // the main thread, at every scrape, for V8 heap spaces JavaScriptCore does not have (all zero but one).
    const walk = spyOn(v8, "getHeapSpaceStatistics");
    try {
      const { registry } = createMetrics("test");
      walk.mockClear();
      const text = await registry.metrics();
      expect(walk).not.toHaveBeenCalled();
      expect(text).not.toContain("nodejs_heap_space_size_");
      // The rest of the defaults stay: CPU, memory from the allocator's counters, the event loop's lag.
      for (const name of ["process_cpu_seconds_total", "process_resident_memory_bytes", "nodejs_heap_size_used_bytes", "nodejs_eventloop_lag_seconds"]) {
        expect(text).toContain(`${name}{role="test"}`);
      }
    } finally {
      walk.mockRestore();
    }
  });
});
