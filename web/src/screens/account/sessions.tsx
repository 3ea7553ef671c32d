import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { api, data } from "../../api/client";
import { fmtAgo } from "../../components/format";
import { ConfirmButton } from "../../components/widgets";
import { ErrorMessage, fmtTime, Loading } from "../../components/ui";
import { AccountNav } from "./account-nav";

/** Where you are signed in; any other session can be signed out. */
export function Sessions() {
  const qc = useQueryClient();
  const list = useQuery({ queryKey: ["user", "sessions"], queryFn: () => api.GET("/api/v1/user/sessions", { params: { query: { limit: 100 } } }).then(data) });
  const revoke = useMutation({
    mutationFn: async (ids: string[]) => {
      for (const id of ids) await api.DELETE("/api/v1/user/sessions/{id}", { params: { path: { id } } });
    },
    onSettled: () => qc.invalidateQueries({ queryKey: ["user", "sessions"] }),
  });
  if (list.isPending) return <Loading what="your sessions" />;
  if (list.isError) return <ErrorMessage error={list.error} />;
  const others = list.data.data.filter((s) => !s.current);
  return (
    <section aria-labelledby="account-h">
      <h1 id="account-h">Account</h1>
      <AccountNav />
      <h2 id="sessions-h">Sessions</h2>
      <table className="table" aria-labelledby="sessions-h" data-testid="sessions">
        <thead>
          <tr>
            <th scope="col">Device</th>
            <th scope="col">Address</th>
            <th scope="col">Signed in</th>
            <th scope="col">Last active</th>
            <th scope="col">Expires</th>
            <th scope="col">
              <span className="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {list.data.data.map((s) => {
            const device = describeAgent(s.user_agent);
            return (
              <tr key={s.id} data-current={s.current}>
                <th scope="row">
                  {device}
                  {s.current && <span className="badge badge-active"> this session</span>}
                </th>
                <td>{s.ip ?? "—"}</td>
                <td>{fmtTime(s.created_at)}</td>
                <td>{fmtAgo(s.last_seen_at)}</td>
                <td>{fmtTime(s.expires_at)}</td>
                <td>
                  {!s.current && (
                    <ConfirmButton label="Sign out" buttonLabel={`Sign out ${device} from ${s.ip ?? "unknown address"}`} title="Sign this session out?" confirmLabel="Sign out" onConfirm={() => revoke.mutate([s.id])}>
                      <p>That browser is signed out at its next request.</p>
                    </ConfirmButton>
                  )}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      <ErrorMessage error={revoke.error} />
      {others.length > 0 && (
        <ConfirmButton label="Sign out everywhere else" title="Sign out every other session?" confirmLabel="Sign them out" onConfirm={() => revoke.mutate(others.map((s) => s.id))}>
          <p>
            {others.length} other session{others.length === 1 ? "" : "s"} end{others.length === 1 ? "s" : ""} at once. This one stays.
          </p>
        </ConfirmButton>
      )}
    </section>
  );
}

/** "Chrome on Linux" from a user-agent string, good enough to recognise a device. */
export function describeAgent(ua: string | null): string {
  if (!ua) return "Unknown device";
  const browser = /Edg\//.test(ua) ? "Edge" : /Firefox\//.test(ua) ? "Firefox" : /Chrom(e|ium)\//.test(ua) ? "Chrome" : /Safari\//.test(ua) ? "Safari" : /curl\//.test(ua) ? "curl" : "Browser";
  const os = /Windows/.test(ua) ? "Windows" : /Android/.test(ua) ? "Android" : /iPhone|iPad/.test(ua) ? "iOS" : /Mac OS X/.test(ua) ? "macOS" : /Linux/.test(ua) ? "Linux" : "";
  return os ? `${browser} on ${os}` : browser;
}
