import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { api, data } from "../../api/client";
import { EmptyState, ErrorMessage, Loading, StatusBadge } from "../../components/ui";
import { Link } from "../../lib/router";

/** Groups are tags: each tag in use is a group with its worst status; rename or remove a tag here. */
export function Groups() {
  const qc = useQueryClient();
  const q = useQuery({ queryKey: ["monitor-groups"], queryFn: () => api.GET("/api/v1/monitor-groups", { params: { query: { limit: 100 } } }).then(data) });
  const [renaming, setRenaming] = useState<string | null>(null);
  const done = () => {
    void qc.invalidateQueries({ queryKey: ["monitor-groups"] });
    void qc.invalidateQueries({ queryKey: ["monitors"] });
  };
  const rename = useMutation({
    mutationFn: ({ from, to }: { from: string; to: string }) =>
      api.PATCH("/api/v1/monitor-groups/{tag}", { params: { path: { tag: from } }, body: { tag: to, merge: true } }),
    onSuccess: () => {
      setRenaming(null);
      done();
    },
  });
  const remove = useMutation({
    mutationFn: (tag: string) => api.DELETE("/api/v1/monitor-groups/{tag}", { params: { path: { tag } } }),
    onSettled: done,
  });
  if (q.isPending) return <Loading what="groups" />;
  if (q.isError) return <ErrorMessage error={q.error} />;
  return (
    <section aria-labelledby="groups-h">
      <h1 id="groups-h">Monitor groups</h1>
      {q.data.data.length === 0 ? (
        <EmptyState title="Groups are tags">
          <p>
            Give monitors a tag (for example “production”) when you <Link to="/monitors/new">create</Link> or edit them, and each tag becomes a group here with its worst status. Alert rules
            and maintenance windows can target a group, including monitors tagged later.
          </p>
        </EmptyState>
      ) : (
        <div className="table-scroll">
          <table className="table">
            <thead>
              <tr>
                <th scope="col">Group</th>
                <th scope="col">Status</th>
                <th scope="col">Monitors</th>
                <th scope="col">Up</th>
                <th scope="col">Down</th>
                <th scope="col">Degraded</th>
                <th scope="col">Paused</th>
                <th scope="col">
                  <span className="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {q.data.data.map((g) => (
                <tr key={g.tag}>
                  <td>
                    {renaming === g.tag ? (
                      <form
                        className="row"
                        onSubmit={(e) => {
                          e.preventDefault();
                          const to = String(new FormData(e.currentTarget).get("tag") ?? "").trim();
                          if (to && to !== g.tag) rename.mutate({ from: g.tag, to });
                        }}
                      >
                        <input name="tag" defaultValue={g.tag} aria-label={`New name for ${g.tag}`} required maxLength={64} pattern="[^,]+" autoFocus />
                        <button className="primary" disabled={rename.isPending}>
                          Rename
                        </button>
                        <button type="button" onClick={() => setRenaming(null)}>
                          Cancel
                        </button>
                      </form>
                    ) : (
                      <Link to={`/monitors?tag=${encodeURIComponent(g.tag)}`}>{g.tag}</Link>
                    )}
                  </td>
                  <td>
                    <StatusBadge status={g.status} />
                  </td>
                  <td>{String(g.monitors)}</td>
                  <td>{String(g.counts.up)}</td>
                  <td>{Number(g.counts.down) + Number(g.counts.timeout)}</td>
                  <td>{String(g.counts.degraded)}</td>
                  <td>{String(g.counts.paused)}</td>
                  <td className="row">
                    <button onClick={() => setRenaming(g.tag)} aria-label={`Rename ${g.tag}`}>
                      Rename
                    </button>
                    <button className="danger" aria-label={`Remove tag ${g.tag}`} onClick={() => confirm(`Remove the tag “${g.tag}” from ${String(g.monitors)} monitor(s)? The monitors stay.`) && remove.mutate(g.tag)}>
                      Remove tag
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <p className="muted">Renaming onto an existing tag merges the two groups.</p>
      <ErrorMessage error={rename.error ?? remove.error} />
    </section>
  );
}
