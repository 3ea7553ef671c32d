import { useQuery } from "@tanstack/react-query";
import { api, data } from "../api/client";

/** A monitor's name from its id (cached with the monitor itself; lists that hold ids use it). */
export function MonitorName({ id }: { id: string }) {
  const q = useQuery({ queryKey: ["monitor", id], queryFn: () => api.GET("/api/v1/monitors/{id}", { params: { path: { id } } }).then(data), staleTime: 60_000, retry: false });
  return <>{q.data?.name ?? (q.isError ? "(deleted monitor)" : id)}</>;
}

/** Pages of the monitor list read for names at most (1,000 monitors); past that, names are looked up one by one. */
const NAME_PAGES = 10;

/**
 * Every monitor's name by id, from the list. `complete` when the list was read to its end: an id missing from
 * it is then a deleted monitor, known without asking for it (which answers 404, an error in the console).
 */
export function useMonitorNames() {
  return useQuery({
    // Read again on each visit: a monitor created meanwhile must not pass for a deleted one.
    queryKey: ["monitors", "names"],
    queryFn: async () => {
      const names = new Map<string, string>();
      for (let page = 1; page <= NAME_PAGES; page++) {
        const r = await api.GET("/api/v1/monitors", { params: { query: { limit: 100, page } } }).then(data);
        for (const m of r.data) names.set(m.id, m.name);
        if (!r.pagination.hasMore) return { names, complete: true };
      }
      return { names, complete: false };
    },
  });
}
