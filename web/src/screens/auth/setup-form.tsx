import { useMutation, useQueryClient } from "@tanstack/react-query";
import { api, ApiError, data } from "../../api/client";
import { ErrorMessage, Field } from "../../components/ui";
import { Link, useRouter } from "../../lib/router";
import { useSession } from "../../lib/session";
import { AuthFrame, form } from "./auth-forms";

/** The first screen of a fresh installation (no organisation yet): its owner and first organisation. */
export function Setup() {
  const session = useSession();
  const qc = useQueryClient();
  const { navigate } = useRouter();
  const setup = useMutation({
    mutationFn: (body: { email: string; password: string; name: string; org_name: string }) => api.POST("/api/v1/setup", { body }).then(data),
    onSuccess: async (res) => {
      await session.signedIn(res.org_id);
      qc.setQueryData(["setup"], { needed: false });
      navigate("/monitors");
    },
  });
  const issues = setup.error instanceof ApiError ? setup.error.issues : {};
  const taken = setup.error instanceof ApiError && setup.error.details.reason === "already_set_up";
  return (
    <AuthFrame title="Welcome to Watchpost">
      <p>This installation has no account yet. Create yours: you will own it and its first organisation.</p>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          const f = form(e);
          setup.mutate({ email: f.email!, password: f.password!, name: f.name!, org_name: f.org_name! });
        }}
      >
        <Field label="Your name" name="name" required maxLength={120} autoComplete="name" error={issues["body.name"]} />
        <Field label="Email" name="email" type="email" required autoComplete="email" error={issues["body.email"]} />
        <Field label="Password" name="password" type="password" required minLength={10} autoComplete="new-password" hint="At least 10 characters" error={issues["body.password"]} />
        <Field label="Organisation name" name="org_name" required maxLength={120} autoComplete="organization" hint="Your team or company; you can rename it later" error={issues["body.org_name"]} />
        <ErrorMessage error={setup.error} />
        {taken && (
          <p>
            <Link to="/signin">Sign in</Link> instead.
          </p>
        )}
        <button className="primary" disabled={setup.isPending}>
          {setup.isPending ? "Creating…" : "Create account"}
        </button>
      </form>
    </AuthFrame>
  );
}
