import { useQuery } from "@tanstack/react-query";
import { api, data } from "../../api/client";
import { locationName, type RunnerName } from "./locations";

/** The organisation's runners (revoked ones included) by id, for naming result locations; ids stay ids until they load. */
export function useRunnerNames(): RunnerName[] | undefined {
  const q = useQuery({
    queryKey: ["runners", "names"],
    queryFn: () => api.GET("/api/v1/runners", { params: { query: { limit: 100 } } }).then(data),
    staleTime: 60_000,
    retry: false,
  });
  return q.data?.data;
}

/** `(location) => label`: a runner's name instead of its `run_…` id. */
export function useLocationName(): (location: string) => string {
  const runners = useRunnerNames();
  return (location) => locationName(location, runners);
}
