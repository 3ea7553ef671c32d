import { keepPreviousData, useInfiniteQuery } from "@tanstack/react-query";
import { api, data } from "../../api/client";
import type { paths } from "../../api/schema.gen";
import { OVERVIEW_BARS } from "../../lib/live";

export type Monitor = paths["/api/v1/monitors"]["get"]["responses"]["200"]["content"]["application/json"]["data"][number];
type Overview = paths["/api/v1/monitors/overview"]["get"]["responses"]["200"]["content"]["application/json"];
export type MonitorState = keyof Omit<Overview["counts"], "total">;
export type MonitorSort = "status" | "name" | "response_time" | "created";
export type MonitorFilters = { search?: string; state?: MonitorState; type?: string; tag?: string; sort?: MonitorSort };
type Query = NonNullable<paths["/api/v1/monitors/overview"]["get"]["parameters"]["query"]>;

const PAGE_SIZE = 50;

/**
 * The overview a page of 100 at a time from GET /monitors/overview (counts, monitors, 24 h uptime and
 * bars in one call); the list asks for the next page when it scrolls near the end. Live events patch
 * it in place (lib/live.ts), so it is not polled.
 */
export function useMonitorOverview(filters: MonitorFilters) {
  return useInfiniteQuery({
    queryKey: ["monitors", "overview", filters],
    // A new filter keeps the old rows on screen until its first page arrives (and the search box keeps focus).
    placeholderData: keepPreviousData,
    staleTime: 30_000,
    initialPageParam: 1,
    queryFn: ({ pageParam }) =>
      api.GET("/api/v1/monitors/overview", { params: { query: { ...(filters as Query), page: pageParam, limit: PAGE_SIZE, bars: OVERVIEW_BARS } } }).then(data),
    getNextPageParam: (last) => (last.pagination.hasMore ? Number(last.pagination.page) + 1 : undefined),
  });
}
