import { useId, useRef, useState, type KeyboardEvent } from "react";
import { createPortal } from "react-dom";
import { fmtMs } from "./ui";

export type BarResult = { at: string; status: string; duration_ms: number | null; location: string };

const LABEL: Record<string, string> = { up: "Up", down: "Down", timeout: "Timed out", degraded: "Degraded", unavailable: "Monitoring unavailable" };

/**
 * A monitor's latest results as a row of coloured ticks, oldest on the left (empty slots first when it
 * has fewer). Hovering a tick, or focusing the bar and moving with ← →, shows its time, status,
 * response time and region.
 */
export function ResultBar({ results, slots, name }: { results: BarResult[]; slots: number; name: string }) {
  const [active, setActive] = useState<number | null>(null);
  const tipId = useId();
  const ref = useRef<HTMLDivElement>(null);
  const shown = results.slice(-slots);
  const empty = slots - shown.length;
  const failing = shown.filter((r) => r.status === "down" || r.status === "timeout").length;
  const summary = shown.length === 0 ? `No results yet for ${name}` : `Last ${shown.length} results of ${name}: ${failing === 0 ? "none failed" : `${failing} failed`}`;
  const onKey = (e: KeyboardEvent) => {
    if (shown.length === 0 || (e.key !== "ArrowLeft" && e.key !== "ArrowRight")) return;
    e.preventDefault();
    e.stopPropagation();
    const from = active ?? shown.length;
    setActive(Math.max(0, Math.min(shown.length - 1, from + (e.key === "ArrowLeft" ? -1 : 1))));
  };
  const tip = active != null ? shown[active] : undefined;
  return (
    <div
      ref={ref}
      className="result-bar"
      role="group"
      tabIndex={0}
      aria-label={summary}
      aria-describedby={tip ? tipId : undefined}
      data-testid="result-bar"
      onKeyDown={onKey}
      onFocus={() => shown.length && setActive((a) => a ?? shown.length - 1)}
      onBlur={() => setActive(null)}
      onMouseLeave={() => setActive(null)}
    >
      {Array.from({ length: empty }, (_, i) => (
        <span key={`e${i}`} className="tick tick-none" />
      ))}
      {shown.map((r, i) => (
        <span key={`${r.at}-${r.location}`} className={`tick tick-${r.status}${i === active ? " active" : ""}`} data-result={r.status} onMouseEnter={() => setActive(i)} />
      ))}
      {tip && ref.current && createPortal(<Tip id={tipId} result={tip} anchor={ref.current.children[empty + active!] as HTMLElement | undefined} />, document.body)}
    </div>
  );
}

/** The details of one result, over its tick: fixed to the page so no scrolling box or row clips it. */
function Tip({ id, result, anchor }: { id: string; result: BarResult; anchor: HTMLElement | undefined }) {
  const box = anchor?.getBoundingClientRect();
  // A tick hidden on a narrow screen (only the newest 30 show there) has no box to point at.
  if (!box?.width) return null;
  const left = Math.min(innerWidth - 120, Math.max(120, box.left + box.width / 2));
  return (
    <span role="tooltip" id={id} className="result-tip" style={{ left, top: box.top - 6 }}>
      <strong>{LABEL[result.status] ?? result.status}</strong> · {fmtMs(result.duration_ms)} · {result.location}
      <br />
      <time dateTime={result.at}>{new Date(result.at).toLocaleString()}</time>
    </span>
  );
}
