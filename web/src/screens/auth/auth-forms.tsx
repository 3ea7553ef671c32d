import { useMutation } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { api, ApiError, data } from "../../api/client";
import { ErrorMessage, Field } from "../../components/ui";
import { Link, useRouter } from "../../lib/router";
import { useSession } from "../../lib/session";

export const form = (e: FormEvent<HTMLFormElement>) => Object.fromEntries(new FormData(e.currentTarget)) as Record<string, string>;

export function AuthFrame({ title, children }: { title: string; children: React.ReactNode }) {
  return (
    <main className="auth">
      <h1 className="brand">Watchpost</h1>
      <section className="card">
        <h2>{title}</h2>
        {children}
      </section>
    </main>
  );
}

export function SignUp() {
  const session = useSession();
  const { navigate } = useRouter();
  const signup = useMutation({
    mutationFn: (body: { email: string; password: string; name: string; org_name?: string }) => api.POST("/api/v1/auth/signup", { body }).then(data),
    onSuccess: async (res) => {
      await session.signedIn(res.org_id);
      navigate("/monitors");
    },
  });
  const issues = signup.error instanceof ApiError ? signup.error.issues : {};
  return (
    <AuthFrame title="Create your account">
      <form
        onSubmit={(e) => {
          e.preventDefault();
          const f = form(e);
          signup.mutate({ email: f.email!, password: f.password!, name: f.name!, ...(f.org_name ? { org_name: f.org_name } : {}) });
        }}
      >
        <Field label="Your name" name="name" required maxLength={120} autoComplete="name" error={issues["body.name"]} />
        <Field label="Email" name="email" type="email" required autoComplete="email" error={issues["body.email"]} />
        <Field label="Password" name="password" type="password" required minLength={10} autoComplete="new-password" hint="At least 10 characters" error={issues["body.password"]} />
        <Field label="Organisation name (optional)" name="org_name" maxLength={120} />
        <ErrorMessage error={signup.error} />
        <button className="primary" disabled={signup.isPending}>
          {signup.isPending ? "Creating…" : "Create account"}
        </button>
      </form>
      <p>
        Already have an account? <Link to="/signin">Sign in</Link>
      </p>
    </AuthFrame>
  );
}

export function SignIn() {
  const session = useSession();
  const { navigate, search } = useRouter();
  const [needsCode, setNeedsCode] = useState(false);
  const [useRecovery, setUseRecovery] = useState(false);
  const signin = useMutation({
    mutationFn: (body: { email: string; password: string; totp_code?: string; recovery_code?: string }) => api.POST("/api/v1/auth/signin", { body }).then(data),
    onSuccess: async (res) => {
      await session.signedIn(res.org_id);
      navigate("/monitors");
    },
    onError: (err) => {
      // The API answers 401 with details.reason "totp_required" when the account has 2FA and no code came.
      if (err instanceof ApiError && err.details.reason === "totp_required") setNeedsCode(true);
    },
  });
  return (
    <AuthFrame title="Sign in">
      {search.get("reset") === "done" && (
        <p role="status" className="notice">
          Your password is changed and every other session signed out. Sign in with the new one.
        </p>
      )}
      <form
        onSubmit={(e) => {
          e.preventDefault();
          const f = form(e);
          const second = f.recovery_code ? { recovery_code: f.recovery_code } : f.totp_code ? { totp_code: f.totp_code } : {};
          signin.mutate({ email: f.email!, password: f.password!, ...second });
        }}
      >
        <Field label="Email" name="email" type="email" required autoComplete="username" />
        <Field label="Password" name="password" type="password" required autoComplete="current-password" />
        {needsCode && !useRecovery && <Field label="Authentication code" name="totp_code" inputMode="numeric" pattern="[0-9 ]{6,8}" autoComplete="one-time-code" autoFocus required hint="The 6-digit code from your authenticator app" />}
        {needsCode && useRecovery && <Field label="Recovery code" name="recovery_code" autoComplete="off" autoFocus required maxLength={40} hint="One of the recovery codes you saved when turning on 2FA; each works once" />}
        {needsCode && (
          <button type="button" className="link" onClick={() => setUseRecovery(!useRecovery)}>
            {useRecovery ? "Use a code from your app instead" : "Lost your app? Use a recovery code"}
          </button>
        )}
        <ErrorMessage error={signin.error} />
        <button className="primary" disabled={signin.isPending}>
          {signin.isPending ? "Signing in…" : "Sign in"}
        </button>
      </form>
      <p>
        <Link to="/password-reset">Forgot your password?</Link> · <Link to="/signup">Create an account</Link>
      </p>
    </AuthFrame>
  );
}

export function PasswordReset() {
  const { search, navigate } = useRouter();
  const token = search.get("token");
  const request = useMutation({ mutationFn: (email: string) => api.POST("/api/v1/auth/password-reset/request", { body: { email } }) });
  const confirm = useMutation({
    mutationFn: (password: string) => api.POST("/api/v1/auth/password-reset/confirm", { body: { token: token!, password } }),
    onSuccess: () => navigate("/signin?reset=done"),
  });
  if (token)
    return (
      <AuthFrame title="Choose a new password">
        <form
          onSubmit={(e) => {
            e.preventDefault();
            confirm.mutate(form(e).password!);
          }}
        >
          <Field label="New password" name="password" type="password" required minLength={10} autoComplete="new-password" hint="At least 10 characters; every session is signed out" />
          <ErrorMessage error={confirm.error} />
          <button className="primary" disabled={confirm.isPending}>
            Set password
          </button>
        </form>
      </AuthFrame>
    );
  return (
    <AuthFrame title="Reset your password">
      {request.isSuccess ? (
        <p role="status">If an account uses that address, we have emailed it a link valid for one hour.</p>
      ) : (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            request.mutate(form(e).email!);
          }}
        >
          <Field label="Email" name="email" type="email" required autoComplete="email" />
          <ErrorMessage error={request.error} />
          <button className="primary" disabled={request.isPending}>
            Email me a link
          </button>
        </form>
      )}
      <p>
        <Link to="/signin">Back to sign in</Link>
      </p>
    </AuthFrame>
  );
}
