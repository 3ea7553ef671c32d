import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { api, data } from "../../api/client";
import { ErrorMessage, fmtTime, Loading } from "../../components/ui";
import { Link } from "../../lib/router";
import { useSession } from "../../lib/session";
import { OrgNav } from "./org-nav";
import { useMyRole } from "./use-permissions";

/** Organisation-wide requirements: mandatory two-factor authentication. */
export function Security() {
  const qc = useQueryClient();
  const { user } = useSession();
  const { can, loading } = useMyRole();
  const admin = can("org:admin");
  const policy = useQuery({ queryKey: ["org", "security-policy"], queryFn: () => api.GET("/api/v1/org/security-policy").then(data) });
  const members = useQuery({ queryKey: ["org", "members"], queryFn: () => api.GET("/api/v1/org/members", { params: { query: { limit: 100 } } }).then(data) });
  // Shown at once while the change is saved; back to the server's answer if it fails.
  const [pending, setPending] = useState<boolean | null>(null);
  const update = useMutation({
    mutationFn: (require_2fa: boolean) => api.PATCH("/api/v1/org/security-policy", { body: { require_2fa } }).then(data),
    onMutate: (v) => setPending(v),
    onSuccess: (p) => {
      qc.setQueryData(["org", "security-policy"], p);
      void qc.invalidateQueries({ queryKey: ["orgs"] });
    },
    onSettled: () => setPending(null),
  });
  if (policy.isPending || loading) return <Loading what="the security policy" />;
  if (policy.isError) return <ErrorMessage error={policy.error} />;
  const without = (members.data?.data ?? []).filter((m) => !m.two_factor_enabled);
  const mine = Boolean(user?.two_factor_enabled);
  const on = pending ?? policy.data.require_2fa;
  return (
    <section aria-labelledby="security-h">
      <h1 id="security-h">Organisation</h1>
      <OrgNav />
      <h2>Security policy</h2>
      <div className="card">
        <label className="inline">
          <input
            type="checkbox"
            checked={on}
            disabled={!admin || update.isPending || (!on && !mine)}
            onChange={(e) => update.mutate(e.target.checked)}
            aria-describedby="require-2fa-hint"
          />{" "}
          Require two-factor authentication for every member
        </label>
        <p id="require-2fa-hint" className="muted">
          Members without it keep their account but cannot use this organisation (its screens and its API through their session) until they turn it on under Account. API keys are not affected.
        </p>
        {!on && !mine && admin && (
          <p role="note">
            Turn on two-factor authentication for your own account first: <Link to="/account/security">set it up</Link>.
          </p>
        )}
        <p className="muted">Last changed {fmtTime(policy.data.updated_at)}.</p>
      </div>
      <ErrorMessage error={update.error} />
      {without.length > 0 && (
        <>
          <h2 id="no2fa-h">Members without two-factor authentication</h2>
          <ul aria-labelledby="no2fa-h" data-testid="without-2fa">
            {without.map((m) => (
              <li key={m.user_id}>
                {m.name} ({m.email}){on ? " — blocked until they turn it on" : ""}
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}
