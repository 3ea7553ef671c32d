import { useMutation } from "@tanstack/react-query";
import { useState } from "react";
import { api, ApiError, data, ORG_KEY } from "../../api/client";
import { ConfirmButton } from "../../components/widgets";
import { ErrorMessage, Field } from "../../components/ui";
import { AccountNav } from "./account-nav";

/** A JSON export of everything the account owns, and deleting the account. */
export function AccountData() {
  const [password, setPassword] = useState("");
  const exportData = useMutation({
    mutationFn: () => api.GET("/api/v1/user/export").then(data),
    onSuccess: (json) => {
      const url = URL.createObjectURL(new Blob([JSON.stringify(json, null, 2)], { type: "application/json" }));
      const a = document.createElement("a");
      a.href = url;
      a.download = `watchpost-export-${new Date().toISOString().slice(0, 10)}.json`;
      document.body.append(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
    },
  });
  const remove = useMutation({
    mutationFn: () => api.DELETE("/api/v1/user", { body: { password } }).then(data),
    onSuccess: () => {
      // The API cleared the session cookies with the account; a fresh load starts signed out (and with an empty
      // cache: clearing it here would only have the screen still showing fetch its queries again without a session).
      localStorage.removeItem(ORG_KEY);
      location.assign("/signin");
    },
  });
  const blocking = remove.error instanceof ApiError && Array.isArray(remove.error.details.organisations) ? (remove.error.details.organisations as { id?: string; name?: string }[]) : [];
  return (
    <section aria-labelledby="account-h">
      <h1 id="account-h">Account</h1>
      <AccountNav />
      <h2>Export your data</h2>
      <p>A JSON file with your profile, sessions, organisations and their monitors, alerting, status pages and API keys (never passwords, keys or secrets).</p>
      <ErrorMessage error={exportData.error} />
      <button onClick={() => exportData.mutate()} disabled={exportData.isPending}>
        {exportData.isPending ? "Preparing…" : "Download my data"}
      </button>
      <h2>Delete your account</h2>
      <div className="card">
        <p>
          This deletes your account and signs you out everywhere. Organisations where you are the only member are deleted with everything in them. If you are the only owner of an organisation others
          use, give someone else the Owner role first.
        </p>
        <Field label="Your password" name="delete_password" type="password" autoComplete="current-password" value={password} onChange={(e) => setPassword(e.target.value)} />
        <ConfirmButton label="Delete my account" title="Delete your account for good?" confirmLabel="Delete account" disabled={!password || remove.isPending} onConfirm={() => remove.mutate()}>
          <p>There is no undo. Download your data first if you want to keep it.</p>
        </ConfirmButton>
        <ErrorMessage error={remove.error} />
        {blocking.length > 0 && (
          <ul data-testid="blocking-orgs">
            {blocking.map((o, i) => (
              <li key={o.id ?? i}>{o.name ?? o.id}</li>
            ))}
          </ul>
        )}
      </div>
    </section>
  );
}
