import { useQuery } from "@tanstack/react-query";
import { api, data } from "../api/client";

/** A monitor's name from its id (cached with the monitor itself; lists that hold ids use it). */
export function MonitorName({ id }: { id: string }) {
  const q = useQuery({ queryKey: ["monitor", id], queryFn: () => api.GET("/api/v1/monitors/{id}", { params: { path: { id } } }).then(data), staleTime: 60_000, retry: false });
  return <>{q.data?.name ?? (q.isError ? "(deleted monitor)" : id)}</>;
}
