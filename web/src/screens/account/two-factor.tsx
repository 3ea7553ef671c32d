import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { QRCodeSVG } from "qrcode.react";
import { useState } from "react";
import { api, ApiError, data } from "../../api/client";
import { CopyButton } from "../../components/widgets";
import { ErrorMessage, Field, Loading } from "../../components/ui";
import { AccountNav } from "./account-nav";
import { RecoveryCodesOnce, RegenerateRecoveryCodes } from "./recovery-codes";

/** Six digits (spaces allowed, as apps show "123 456"), or what is wrong in words. */
export function checkTotpCode(raw: string): { code: string } | { problem: string } {
  const code = raw.replace(/\s/g, "");
  if (!code) return { problem: "Enter the 6-digit code your authenticator app shows now." };
  if (!/^\d+$/.test(code)) return { problem: "The code is digits only: type the 6 digits your app shows, without letters." };
  if (code.length !== 6) return { problem: `The code has 6 digits; this one has ${code.length}.` };
  return { code };
}

/** A code the API refused, in words next to the field (a code is valid for about 30 seconds). */
const refusedCode = (error: unknown) =>
  error instanceof ApiError && error.issues["body.code"] ? "That code did not match. Codes change every 30 seconds: enter the one your app shows now, and check that your phone's clock is set automatically." : undefined;

/** A one-time code field that checks itself before the form is sent and shows the API's refusal in words. */
function CodeForm({ label, name, button, danger, pending, error, onCode }: { label: string; name: string; button: string; danger?: boolean; pending: boolean; error: unknown; onCode: (code: string) => void }) {
  const [problem, setProblem] = useState("");
  const fieldError = problem || refusedCode(error);
  return (
    <form
      className="stack"
      aria-label={label}
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        const checked = checkTotpCode(String(new FormData(e.currentTarget).get(name) ?? ""));
        if ("problem" in checked) return setProblem(checked.problem);
        setProblem("");
        onCode(checked.code);
      }}
    >
      <Field label="Code from your app" name={name} required inputMode="numeric" autoComplete="one-time-code" maxLength={8} error={fieldError} onChange={() => setProblem("")} />
      {!fieldError && <ErrorMessage error={error} />}
      <div className="row">
        <button className={danger ? "danger" : "primary"} disabled={pending}>
          {button}
        </button>
      </div>
    </form>
  );
}

/** TOTP two-factor authentication: a QR code for the authenticator app, then a code to confirm it. */
export function TwoFactor() {
  const qc = useQueryClient();
  const me = useQuery({ queryKey: ["user"], queryFn: () => api.GET("/api/v1/user").then(data) });
  const [enrolment, setEnrolment] = useState<{ secret: string; otpauth_url: string } | null>(null);
  const [said, setSaid] = useState("");
  const [codes, setCodes] = useState<{ list: string[]; renewed: boolean } | null>(null);
  const refresh = () => {
    void qc.invalidateQueries({ queryKey: ["user"] });
    void qc.invalidateQueries({ queryKey: ["session"] });
    void qc.invalidateQueries({ queryKey: ["orgs"] });
  };
  const setup = useMutation({ mutationFn: () => api.POST("/api/v1/user/2fa/setup").then(data), onSuccess: setEnrolment });
  const enable = useMutation({
    mutationFn: (code: string) => api.POST("/api/v1/user/2fa/enable", { body: { code } }).then(data),
    onSuccess: ({ recovery_codes, ...u }) => {
      qc.setQueryData(["user"], u);
      setEnrolment(null);
      setCodes({ list: recovery_codes, renewed: false });
      setSaid("Two-factor authentication is on. Signing in now asks for a code from your app.");
      refresh();
    },
  });
  const disable = useMutation({
    mutationFn: (code: string) => api.POST("/api/v1/user/2fa/disable", { body: { code } }).then(data),
    onSuccess: (u) => {
      qc.setQueryData(["user"], u);
      setCodes(null);
      setSaid("Two-factor authentication is off.");
      refresh();
    },
  });
  if (me.isPending) return <Loading what="your account" />;
  if (me.isError) return <ErrorMessage error={me.error} />;
  const on = me.data.two_factor_enabled;
  return (
    <section aria-labelledby="account-h">
      <h1 id="account-h">Account</h1>
      <AccountNav />
      <h2>Two-factor authentication</h2>
      <p>
        Status:{" "}
        <span className={`badge badge-${on ? "active" : "offline"}`} data-testid="2fa-state">
          {on ? "on" : "off"}
        </span>
      </p>
      <p role="status">{said}</p>
      {codes && <RecoveryCodesOnce codes={codes.list} renewed={codes.renewed} account={me.data.email} onDone={() => setCodes(null)} />}
      {on ? (
        <div className="grid-2">
          {!codes && <RegenerateRecoveryCodes onCodes={(list) => setCodes({ list, renewed: true })} />}
          <div className="card">
            <h3>Turn off</h3>
            <p>To turn it off, enter a current code from your authenticator app.</p>
            <CodeForm label="Turn off two-factor authentication" name="disable_code" button="Turn off" danger pending={disable.isPending} error={disable.error} onCode={(c) => disable.mutate(c)} />
          </div>
        </div>
      ) : enrolment ? (
        <div className="card">
          <ol>
            <li>
              <p>Scan this code with an authenticator app (1Password, Google Authenticator, Aegis…).</p>
              <div className="qr">
                <QRCodeSVG value={enrolment.otpauth_url} size={200} level="M" marginSize={2} role="img" aria-label="QR code of your two-factor secret" data-testid="totp-qr" />
              </div>
              <p>
                Cannot scan it? Enter this key instead: <code data-testid="totp-secret">{enrolment.secret}</code> <CopyButton text={enrolment.secret} what="two-factor key" />
              </p>
            </li>
            <li>
              <p>Then enter the code the app shows for Watchpost.</p>
              <CodeForm label="Confirm two-factor authentication" name="enable_code" button="Turn on" pending={enable.isPending} error={enable.error} onCode={(c) => enable.mutate(c)} />
            </li>
          </ol>
        </div>
      ) : (
        <>
          <p>Protect your account with a one-time code from an app on your phone, asked for at every sign-in.</p>
          <ErrorMessage error={setup.error} />
          <button className="primary" onClick={() => setup.mutate()} disabled={setup.isPending}>
            Set up two-factor authentication
          </button>
        </>
      )}
    </section>
  );
}
