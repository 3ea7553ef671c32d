import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { QRCodeSVG } from "qrcode.react";
import { useState } from "react";
import { api, data } from "../../api/client";
import { CopyButton } from "../../components/widgets";
import { ErrorMessage, Field, Loading } from "../../components/ui";
import { AccountNav } from "./account-nav";
import { RecoveryCodesOnce, RegenerateRecoveryCodes } from "./recovery-codes";

/** TOTP two-factor authentication: a QR code for the authenticator app, then a code to confirm it. */
export function TwoFactor() {
  const qc = useQueryClient();
  const me = useQuery({ queryKey: ["user"], queryFn: () => api.GET("/api/v1/user").then(data) });
  const [enrolment, setEnrolment] = useState<{ secret: string; otpauth_url: string } | null>(null);
  const [said, setSaid] = useState("");
  const [codes, setCodes] = useState<string[] | null>(null);
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
      setCodes(recovery_codes);
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
      {codes && <RecoveryCodesOnce codes={codes} onDone={() => setCodes(null)} />}
      {on && !codes && <RegenerateRecoveryCodes onCodes={setCodes} />}
      {on ? (
        <form
          className="stack card"
          aria-label="Turn off two-factor authentication"
          onSubmit={(e) => {
            e.preventDefault();
            disable.mutate(String(new FormData(e.currentTarget).get("disable_code")).replace(/\s/g, ""));
          }}
        >
          <p>To turn it off, enter a current code from your authenticator app.</p>
          <Field label="Code from your app" name="disable_code" required inputMode="numeric" autoComplete="one-time-code" pattern="[0-9 ]{6,8}" />
          <ErrorMessage error={disable.error} />
          <button className="danger" disabled={disable.isPending}>
            Turn off
          </button>
        </form>
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
              <form
                className="stack"
                aria-label="Confirm two-factor authentication"
                onSubmit={(e) => {
                  e.preventDefault();
                  enable.mutate(String(new FormData(e.currentTarget).get("enable_code")).replace(/\s/g, ""));
                }}
              >
                <Field label="Code from your app" name="enable_code" required inputMode="numeric" autoComplete="one-time-code" pattern="[0-9 ]{6,8}" />
                <ErrorMessage error={enable.error} />
                <button className="primary" disabled={enable.isPending}>
                  Turn on
                </button>
              </form>
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
