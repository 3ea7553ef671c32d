import { useEffect, useState, type ReactNode } from "react";
import { addLeaveGuard } from "../lib/router";
import { Modal } from "./widgets";

interface Wording {
  title: string;
  body: ReactNode;
  stay: string;
  leave: string;
}

const CHANGES: Wording = {
  title: "Leave without saving?",
  body: <p>Your changes on this page are not saved yet and are lost if you leave.</p>,
  stay: "Stay and keep editing",
  leave: "Leave without saving",
};

/**
 * While `active`, leaving asks first: in the app (links, the back button) with a dialog that this
 * hook renders (put what it returns in the screen), and on reload, closing the tab or another site
 * with the browser's own prompt (beforeunload).
 */
export function useLeaveWarning(active: boolean, wording: Partial<Wording> = {}): ReactNode {
  const [pending, setPending] = useState<(() => void) | null>(null);
  useEffect(() => {
    if (!active) return;
    const onBeforeUnload = (e: BeforeUnloadEvent) => {
      e.preventDefault();
      // Older Chromium asks only when returnValue is set.
      e.returnValue = "";
    };
    addEventListener("beforeunload", onBeforeUnload);
    const remove = addLeaveGuard((proceed) => {
      setPending(() => proceed);
      return false;
    });
    return () => {
      removeEventListener("beforeunload", onBeforeUnload);
      remove();
    };
  }, [active]);
  if (!pending) return null;
  const w = { ...CHANGES, ...wording };
  return (
    <Modal title={w.title} onClose={() => setPending(null)}>
      {w.body}
      <div className="row">
        <button type="button" autoFocus onClick={() => setPending(null)}>
          {w.stay}
        </button>
        <button
          type="button"
          className="danger"
          onClick={() => {
            setPending(null);
            pending();
          }}
        >
          {w.leave}
        </button>
      </div>
    </Modal>
  );
}
