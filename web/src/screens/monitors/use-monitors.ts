import { keepPreviousData, useInfiniteQuery, useQueries } from "@tanstack/react-query";
import { api, data } from "../../api/client";
import type { paths } from "../../api/schema.gen";

export type Monitor = paths["/api/v1/monitors"]["get"]["responses"]["200"]["content"]["application/json"]["data"][number];
export type MonitorSort = "status" | "name" | "response_time" | "created";
export type MonitorFilters = { search?: string; status?: string; type?: string; tag?: string; paused?: boolean; sort?: MonitorSort };
type Query = NonNullable<paths["/api/v1/monitors"]["get"]["parameters"]["query"]>;

const PAGE_SIZE = 100;

/** Monitors a page of 100 at a time; the list asks for the next page when it scrolls near the end. */
export function useMonitorPages(filters: MonitorFilters) {
  return useInfiniteQuery({
    queryKey: ["monitors", filters],
    // A new filter keeps the old rows on screen until its first page arrives (and the search box keeps focus).
    placeholderData: keepPreviousData,
    initialPageParam: 1,
    queryFn: ({ pageParam }) =>
      api.GET("/api/v1/monitors", { params: { query: { ...(filters as Query), page: pageParam, limit: PAGE_SIZE } } }).then(data),
    getNextPageParam: (last) => (last.pagination.hasMore ? Number(last.pagination.page) + 1 : undefined),
  });
}

/** 24 h uptime for the loaded pages: one request per page of 100, never one per monitor. */
export function useUptimeFor(pages: Monitor[][]): Map<string, number | null> {
  const results = useQueries({
    queries: pages.map((page) => {
      const ids = page.map((m) => m.id);
      return {
        queryKey: ["uptime-24h", ids],
        enabled: ids.length > 0,
        staleTime: 60_000,
        queryFn: () => api.GET("/api/v1/monitors/uptime", { params: { query: { ids: ids.join(","), window: "24h" as const } } }).then(data),
      };
    }),
  });
  const out = new Map<string, number | null>();
  for (const r of results) for (const row of r.data?.data ?? []) out.set(row.monitor_id, row.uptime_pct);
  return out;
}
