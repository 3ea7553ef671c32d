import { useEffect, useState } from "react";
import { useRouter } from "../lib/router";
import { Modal } from "./widgets";

/** Every keyboard shortcut of the dashboard, as the `?` dialog lists them. */
const SHORTCUTS: [keys: string[], what: string][] = [
  [["/"], "Search monitors"],
  [["↑", "↓"], "Move through the search results (from the search box too)"],
  [["Enter"], "Open the monitor (from the search box: the first result)"],
  [["n"], "New monitor"],
  [["?"], "Show these shortcuts"],
  [["Esc"], "Close this dialog"],
];

/** Typing in a field, or holding a modifier, is never a shortcut. */
const isTyping = (e: KeyboardEvent) =>
  e.ctrlKey ||
  e.metaKey ||
  e.altKey ||
  e.target instanceof HTMLInputElement ||
  e.target instanceof HTMLTextAreaElement ||
  e.target instanceof HTMLSelectElement ||
  (e.target instanceof HTMLElement && e.target.isContentEditable);

/** `n` opens the new monitor form and `?` the list of shortcuts, on every signed-in screen. */
export function KeyboardShortcuts() {
  const { navigate } = useRouter();
  const [open, setOpen] = useState(false);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (isTyping(e) || document.querySelector("dialog[open]")) return;
      if (e.key === "?") {
        e.preventDefault();
        setOpen(true);
      } else if (e.key === "n") {
        e.preventDefault();
        navigate("/monitors/new");
      } else if (e.key === "/" && location.pathname !== "/monitors") {
        // The overview handles "/" itself; elsewhere it goes there and focuses the search box.
        e.preventDefault();
        navigate("/monitors?focus=search");
      }
    };
    addEventListener("keydown", onKey);
    return () => removeEventListener("keydown", onKey);
  }, [navigate]);
  if (!open) return null;
  return (
    <Modal title="Keyboard shortcuts" onClose={() => setOpen(false)}>
      <dl className="shortcuts">
        {SHORTCUTS.map(([keys, what]) => (
          <div key={what}>
            <dt>
              {keys.map((k) => (
                <kbd key={k}>{k}</kbd>
              ))}
            </dt>
            <dd>{what}</dd>
          </div>
        ))}
      </dl>
      <form method="dialog" className="row">
        <button className="primary" autoFocus>
          Close
        </button>
      </form>
    </Modal>
  );
}
