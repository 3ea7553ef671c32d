import { useEffect, useId, useRef, useState, type ReactNode } from "react";
import { Link, useRouter } from "../lib/router";
import { isUnlimited } from "./format";
import "./widgets.css";

/** Copies `text`; falls back to selecting it when the clipboard is not available, and says which happened. */
export function CopyButton({ text, label = "Copy", what }: { text: string; label?: string; what: string }) {
  const [said, setSaid] = useState("");
  return (
    <span className="copy">
      <button
        type="button"
        aria-label={`${label} ${what}`}
        onClick={async () => {
          try {
            await navigator.clipboard.writeText(text);
            setSaid("Copied");
          } catch {
            setSaid("Select the text and press Ctrl+C to copy");
          }
          setTimeout(() => setSaid(""), 4000);
        }}
      >
        {label}
      </button>
      <span role="status" className="muted">
        {said}
      </span>
    </span>
  );
}

/** A secret the API returns once (runner token, API key, webhook signing secret): shown with a copy button and a warning. */
export function SecretOnce({ label, value, stored = "We store only a hash, so nobody can show it again.", children }: { label: string; value: string; stored?: string; children?: ReactNode }) {
  const id = useId();
  return (
    <div className="secret card" role="region" aria-labelledby={id}>
      <h3 id={id}>{label}</h3>
      <p>
        <strong>Copy it now: it is shown only once.</strong> {stored}
      </p>
      <div className="row">
        <code className="secret-value" data-testid="secret-value">
          {value}
        </code>
        <CopyButton text={value} what={label.toLowerCase()} />
      </div>
      {children}
    </div>
  );
}

/** A code block with its own copy button. */
export function Snippet({ code, what, testId }: { code: string; what: string; testId?: string }) {
  return (
    <div className="snippet">
      <pre tabIndex={0} aria-label={what} data-testid={testId}>
        <code>{code}</code>
      </pre>
      <CopyButton text={code} what={what} />
    </div>
  );
}

/** A modal <dialog>: focus is trapped, Escape or Cancel closes it. Rendered only while open. */
export function Modal({ title, onClose, children }: { title: string; onClose: () => void; children: ReactNode }) {
  const ref = useRef<HTMLDialogElement>(null);
  const id = useId();
  useEffect(() => {
    const d = ref.current;
    if (d && !d.open) d.showModal();
    return () => d?.close();
  }, []);
  return (
    <dialog ref={ref} className="confirm" aria-labelledby={id} onClose={onClose}>
      <h2 id={id}>{title}</h2>
      {children}
    </dialog>
  );
}

/**
 * A button that asks before doing something destructive, in a modal dialog rather than
 * window.confirm.
 */
export function ConfirmButton({
  label,
  title,
  confirmLabel,
  onConfirm,
  children,
  danger = true,
  disabled,
  buttonLabel,
}: {
  label: string;
  title: string;
  confirmLabel: string;
  onConfirm: () => void;
  children: ReactNode;
  danger?: boolean;
  disabled?: boolean;
  /** An accessible name for the opening button when `label` alone is ambiguous in a list. */
  buttonLabel?: string;
}) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <button type="button" className={danger ? "danger" : undefined} disabled={disabled} aria-label={buttonLabel} onClick={() => setOpen(true)}>
        {label}
      </button>
      {open && (
        <Modal title={title} onClose={() => setOpen(false)}>
          {children}
          <div className="row">
            <button type="button" autoFocus onClick={() => setOpen(false)}>
              Cancel
            </button>
            <button
              type="button"
              className={danger ? "danger" : "primary"}
              onClick={() => {
                setOpen(false);
                onConfirm();
              }}
            >
              {confirmLabel}
            </button>
          </div>
        </Modal>
      )}
    </>
  );
}

/** Marks a resource the plan no longer covers: kept, not running, reactivated when the quota allows. */
export function SuspendedBadge({ what }: { what: string }) {
  return (
    <span className="badge badge-suspended" data-suspended="true" title={`This ${what} is over your plan's quota: it is kept but not active. Upgrade or free a slot to reactivate it.`}>
      suspended
    </span>
  );
}

/** Usage of one quota as a bar with the figures in text (never colour alone). */
export function UsageBar({ label, used, limit }: { label: string; used: number; limit: number }) {
  const unlimited = isUnlimited(limit);
  const pct = unlimited ? 0 : limit === 0 ? (used > 0 ? 100 : 0) : Math.min(100, (used / limit) * 100);
  const id = useId();
  // 1,000,000 rather than 1000000 (the self-hosted plan's quotas are that large).
  const shown = `${used.toLocaleString("en-US")} of ${unlimited ? "unlimited" : limit.toLocaleString("en-US")}`;
  return (
    <div className="usage">
      <div className="usage-head">
        <span id={id}>{label}</span>
        <span className={used > limit ? "over" : undefined}>
          {shown}
          {used > limit ? " (over quota)" : ""}
        </span>
      </div>
      <div className="usage-bar" role="meter" aria-labelledby={id} aria-valuemin={0} aria-valuemax={unlimited ? used : limit} aria-valuenow={used} aria-valuetext={shown}>
        <span className={pct >= 100 ? "full" : pct >= 80 ? "high" : undefined} style={{ width: `${pct}%` }} />
      </div>
    </div>
  );
}

/** Second-level navigation of an area (organisation settings, account). */
export function SubNav({ label, items }: { label: string; items: readonly (readonly [string, string])[] }) {
  const { path } = useRouter();
  return (
    <nav aria-label={label} className="subnav">
      {items.map(([to, text]) => (
        <Link key={to} to={to} aria-current={path === to ? "page" : undefined}>
          {text}
        </Link>
      ))}
    </nav>
  );
}
