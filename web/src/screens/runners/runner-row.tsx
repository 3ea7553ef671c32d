import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { api, data, type paths } from "../../api/client";
import { fmtAgo } from "../../components/format";
import { ConfirmButton, SuspendedBadge } from "../../components/widgets";
import { ErrorMessage, fmtTime } from "../../components/ui";
import { runnerStatusNote, showsInFlight } from "./runner-status";

export type RunnerItem = paths["/api/v1/runners"]["get"]["responses"]["200"]["content"]["application/json"]["data"][number];

/**
 * One runner: its status and since when, what it last reported (region, version, checks in flight), and, for a
 * role with runners:write (`canWrite`), rename and revoke.
 */
export function RunnerRow({ runner: r, canWrite }: { runner: RunnerItem; canWrite: boolean }) {
  const qc = useQueryClient();
  const [renaming, setRenaming] = useState(false);
  const rename = useMutation({
    mutationFn: (name: string) => api.PATCH("/api/v1/runners/{id}", { params: { path: { id: r.id } }, body: { name } }).then(data),
    onSuccess: () => {
      setRenaming(false);
      void qc.invalidateQueries({ queryKey: ["runners"] });
    },
  });
  const revoke = useMutation({
    mutationFn: () => api.DELETE("/api/v1/runners/{id}", { params: { path: { id: r.id } } }),
    onSettled: () => qc.invalidateQueries({ queryKey: ["runners"] }),
  });
  const note = runnerStatusNote(r);
  const live = r.status !== "revoked";
  return (
    <tr data-runner-id={r.id}>
      <th scope="row">
        {renaming ? (
          <form
            className="row"
            onSubmit={(e) => {
              e.preventDefault();
              rename.mutate(String(new FormData(e.currentTarget).get("name") ?? "").trim());
            }}
          >
            <input name="name" defaultValue={r.name} aria-label={`New name for ${r.name}`} required maxLength={200} autoFocus />
            <button className="primary" disabled={rename.isPending}>
              Save
            </button>
            <button
              type="button"
              onClick={() => {
                setRenaming(false);
                rename.reset();
              }}
            >
              Cancel
            </button>
            <ErrorMessage error={rename.error} labels={{ "body.name": "Name" }} />
          </form>
        ) : (
          r.name
        )}
      </th>
      <td>{r.location_label ?? "—"}</td>
      <td>
        <span className={`badge badge-${r.status}`} data-status={r.status}>
          {r.status}
        </span>{" "}
        {r.suspended && <SuspendedBadge what="runner" />}
        {note && (
          <small className="muted" data-testid="runner-since" title={fmtTime(r.stopped_at ?? r.revoked_at ?? r.last_seen_at)}>
            {" "}
            {note}
          </small>
        )}
      </td>
      <td>{r.region ?? "—"}</td>
      <td>{r.version ?? "—"}</td>
      <td data-testid="runner-in-flight">{showsInFlight(r)}</td>
      <td title={fmtTime(r.last_seen_at)}>{fmtAgo(r.last_seen_at)}</td>
      <td title={fmtTime(r.last_check_at)}>{fmtAgo(r.last_check_at)}</td>
      <td>
        {canWrite && live && (
          <div className="row">
            {!renaming && (
              <button type="button" aria-label={`Rename ${r.name}`} onClick={() => setRenaming(true)}>
                Rename
              </button>
            )}
            <ConfirmButton
              label="Revoke"
              buttonLabel={`Revoke ${r.name}`}
              title={`Revoke ${r.name}?`}
              confirmLabel="Revoke runner"
              disabled={revoke.isPending}
              onConfirm={() => revoke.mutate()}
            >
              <p>Its token stops working at once and it receives no more checks. Monitors that run only on this runner record “unavailable” until you assign another. This cannot be undone.</p>
            </ConfirmButton>
          </div>
        )}
        <ErrorMessage error={revoke.error} />
      </td>
    </tr>
  );
}
