import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { api, ApiError, data } from "../../api/client";
import { ErrorMessage, Field, Loading } from "../../components/ui";
import { AccountNav } from "./account-nav";
import { SingleSignOnLink } from "./single-sign-on";

/** Name, email and password. Changing the email or the password asks for the current password. */
export function Profile() {
  const qc = useQueryClient();
  const me = useQuery({ queryKey: ["user"], queryFn: () => api.GET("/api/v1/user").then(data) });
  const [saved, setSaved] = useState("");
  const [email, setEmail] = useState<string | null>(null);
  const [password, setPassword] = useState("");
  const save = useMutation({
    mutationFn: (body: { name?: string; email?: string; password?: string; current_password?: string }) => api.PATCH("/api/v1/user", { body }).then(data),
    onSuccess: (u) => {
      qc.setQueryData(["user"], u);
      void qc.invalidateQueries({ queryKey: ["session"] });
      setSaved("Saved");
      setPassword("");
    },
  });
  if (me.isPending) return <Loading what="your profile" />;
  if (me.isError) return <ErrorMessage error={me.error} />;
  const u = me.data;
  const needsCurrent = (email !== null && email !== u.email) || password.length > 0;
  const issues = save.error instanceof ApiError ? save.error.issues : {};
  return (
    <section aria-labelledby="account-h">
      <h1 id="account-h">Account</h1>
      <AccountNav />
      <form
        className="stack"
        aria-label="Profile"
        onSubmit={(e) => {
          e.preventDefault();
          setSaved("");
          const f = new FormData(e.currentTarget);
          const newEmail = String(f.get("email")).trim();
          save.mutate({
            name: String(f.get("name")).trim(),
            ...(newEmail !== u.email ? { email: newEmail } : {}),
            ...(password ? { password } : {}),
            ...(needsCurrent ? { current_password: String(f.get("current_password")) } : {}),
          });
        }}
      >
        <Field label="Your name" name="name" required maxLength={120} defaultValue={u.name} autoComplete="name" error={issues["body.name"]} />
        <Field label="Email" name="email" type="email" required defaultValue={u.email} autoComplete="email" onChange={(e) => setEmail(e.target.value)} error={issues["body.email"]} />
        <Field
          label="New password (optional)"
          name="new_password"
          type="password"
          minLength={10}
          autoComplete="new-password"
          hint="At least 10 characters; leave empty to keep yours"
          value={password}
          onChange={(e) => setPassword(e.target.value)}
          error={issues["body.password"]}
        />
        {needsCurrent && <Field label="Current password" name="current_password" type="password" required autoComplete="current-password" />}
        <ErrorMessage error={save.error} />
        <div className="row">
          <button className="primary" disabled={save.isPending}>
            Save profile
          </button>
          <span role="status">{saved}</span>
        </div>
      </form>
      <SingleSignOnLink />
    </section>
  );
}
