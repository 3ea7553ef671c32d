import { queryOptions } from "@tanstack/react-query";
import { api, data } from "../../../api/client";

/**
 * The monitor's last 100 results, one query for the page's parts that read them (the charts, the expiry
 * summary); live results join it in place (lib/live.ts patches every first page of "monitor-checks").
 */
export const recentChecksQuery = (id: string) =>
  queryOptions({
    queryKey: ["monitor-checks", id, { page: 1, limit: 100 }],
    queryFn: () => api.GET("/api/v1/monitors/{id}/checks", { params: { path: { id }, query: { limit: 100 } } }).then(data),
  });
