import { useQuery } from "@tanstack/react-query";
import { useDeferredValue, useId, useState } from "react";
import { api, data } from "../api/client";

/**
 * Picks one monitor by name without loading them all: a search box asks the API for the first
 * 20 matches, shown in a list box whose value is submitted as `name`.
 */
export function MonitorPicker({ name, label, initialId, error }: { name: string; label: string; initialId?: string; error?: string }) {
  const id = useId();
  const [text, setText] = useState("");
  const search = useDeferredValue(text.trim());
  const [chosen, setChosen] = useState(initialId ?? "");
  const initial = useQuery({
    queryKey: ["monitor", initialId],
    enabled: Boolean(initialId),
    queryFn: () => api.GET("/api/v1/monitors/{id}", { params: { path: { id: initialId! } } }).then(data),
  });
  const matches = useQuery({
    queryKey: ["monitor-picker", search],
    queryFn: () => api.GET("/api/v1/monitors", { params: { query: { limit: 20, ...(search ? { search } : {}) } } }).then(data),
    staleTime: 30_000,
  });
  const options = matches.data?.data ?? [];
  const current = initial.data && !options.some((m) => m.id === initial.data.id) ? [initial.data, ...options] : options;
  return (
    <div className="field">
      <label htmlFor={`${id}-search`}>{label}</label>
      <input id={`${id}-search`} type="search" value={text} onChange={(e) => setText(e.target.value)} placeholder="Type to search by name" aria-controls={`${id}-list`} autoComplete="off" />
      <select
        id={`${id}-list`}
        name={name}
        size={Math.min(6, Math.max(2, current.length))}
        value={chosen}
        onChange={(e) => setChosen(e.target.value)}
        aria-label={`${label}: matching monitors`}
        aria-invalid={error ? true : undefined}
      >
        {current.map((m) => (
          <option key={m.id} value={m.id}>
            {m.name} ({m.type})
          </option>
        ))}
      </select>
      {matches.isFetching && <small className="muted">Searching…</small>}
      {!matches.isFetching && current.length === 0 && <small className="muted">No monitor matches.</small>}
      {error && <small className="field-error">{error}</small>}
    </div>
  );
}
