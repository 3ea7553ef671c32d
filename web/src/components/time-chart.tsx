import { useEffect, useRef } from "react";
import uPlot from "uplot";

export interface Series {
  label: string;
  values: (number | null)[];
}

const PALETTE = ["#2563eb", "#d97706", "#059669", "#db2777", "#7c3aed", "#0891b2"];

/** A uPlot line chart over shared x timestamps (seconds); resizes with its container. */
export function TimeChart({ x, series, label, unit = "ms" }: { x: number[]; series: Series[]; label: string; unit?: string }) {
  const box = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);
  const shape = series.map((s) => s.label).join("|");
  useEffect(() => {
    const el = box.current!;
    const opts: uPlot.Options = {
      width: el.clientWidth || 600,
      height: 220,
      series: [{}, ...series.map((s, i) => ({ label: s.label, stroke: PALETTE[i % PALETTE.length], width: 2, spanGaps: true, value: (_u: uPlot, v: number | null) => (v == null ? "—" : `${Math.round(v)} ${unit}`) }))],
      // A lone instant (or several in one second) would otherwise stretch the axis over years.
      scales: { x: { time: true, range: (_u, min, max) => (max - min < 60 ? [min - 60, max + 60] : [min, max]) } },
      axes: [{ stroke: "currentColor" }, { stroke: "currentColor", size: 70, values: (_u, vals) => vals.map((v) => `${v} ${unit}`) }],
    };
    plot.current = new uPlot(opts, [x, ...series.map((s) => s.values)] as uPlot.AlignedData, el);
    const ro = new ResizeObserver(() => plot.current?.setSize({ width: el.clientWidth, height: 220 }));
    ro.observe(el);
    return () => {
      ro.disconnect();
      plot.current?.destroy();
      plot.current = null;
    };
  }, [shape]);
  useEffect(() => {
    plot.current?.setData([x, ...series.map((s) => s.values)] as uPlot.AlignedData);
  }, [x, series]);
  return <div ref={box} className="chart" role="img" aria-label={label} />;
}
