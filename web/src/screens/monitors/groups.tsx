import { useQuery } from "@tanstack/react-query";
import { api, data } from "../../api/client";
import { EmptyState, ErrorMessage, Loading, StatusBadge } from "../../components/ui";

export function Groups() {
  const q = useQuery({ queryKey: ["monitor-groups"], queryFn: () => api.GET("/api/v1/monitor-groups").then(data) });
  if (q.isPending) return <Loading what="groups" />;
  if (q.isError) return <ErrorMessage error={q.error} />;
  return (
    <section aria-labelledby="groups-h">
      <h1 id="groups-h">Monitor groups</h1>
      {q.data.data.length === 0 ? (
        <EmptyState title="Groups are tags">
          <p>Give monitors a tag (for example “production”) when you create or edit them, and each tag becomes a group here with its worst status.</p>
        </EmptyState>
      ) : (
        <table className="table">
          <thead>
            <tr>
              <th>Group</th>
              <th>Status</th>
              <th>Monitors</th>
              <th>Up / down</th>
            </tr>
          </thead>
          <tbody>
            {q.data.data.map((g) => (
              <tr key={g.tag}>
                <td>{g.tag}</td>
                <td>
                  <StatusBadge status={g.status} />
                </td>
                <td>{String(g.monitors)}</td>
                <td>
                  {String(g.counts.up)} / {String(Number(g.counts.down) + Number(g.counts.timeout))}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
