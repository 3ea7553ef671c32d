import { useEffect, useRef } from "react";
import uPlot from "uplot";

export interface Series {
  label: string;
  /** null breaks the line unless `spanGaps`; undefined is no point at that instant (always joined over). */
  values: (number | null | undefined)[];
}

/** A shaded stretch of the time axis (seconds): failing checks, maintenance, no monitoring. */
export interface ChartBand {
  from: number;
  to: number;
  kind: "failure" | "degraded" | "maintenance" | "gap";
}

const PALETTE = ["#2563eb", "#d97706", "#059669", "#db2777", "#7c3aed", "#0891b2"];
const BAND_FILL: Record<ChartBand["kind"], string> = {
  failure: "rgba(220, 38, 38, 0.22)",
  degraded: "rgba(217, 119, 6, 0.2)",
  maintenance: "rgba(100, 116, 139, 0.28)",
  gap: "rgba(100, 116, 139, 0.12)",
};
/**
 * Least room between time ticks, CSS px: the first tick of a range of minutes reads "11/29/26 1:07pm"
 * (about 105 px, centred), so at uPlot's 50 it overlapped "1:08pm" beside it.
 */
const X_TICK_SPACE = 90;
/** Room right of the plot (CSS px) for half the label of a tick at its end ("1:30pm", "11/29/26"). */
const RIGHT_PAD = 40;
const BAND_LABEL: Record<ChartBand["kind"], string> = { failure: "failing checks", degraded: "degraded", maintenance: "maintenance", gap: "not monitored" };

/** Bands behind the lines; a gap is hatched so it reads as "no data", not as a colour. */
function bandsPlugin(bands: { current: ChartBand[] }): uPlot.Plugin {
  return {
    hooks: {
      drawClear: (u) => {
        const { ctx, bbox } = u;
        ctx.save();
        ctx.beginPath();
        ctx.rect(bbox.left, bbox.top, bbox.width, bbox.height);
        ctx.clip();
        for (const b of bands.current) {
          const x0 = u.valToPos(b.from, "x", true);
          const x1 = Math.max(u.valToPos(b.to, "x", true), x0 + 2 * devicePixelRatio);
          ctx.fillStyle = BAND_FILL[b.kind];
          ctx.fillRect(x0, bbox.top, x1 - x0, bbox.height);
          if (b.kind === "gap") {
            ctx.strokeStyle = "rgba(100, 116, 139, 0.45)";
            ctx.lineWidth = devicePixelRatio;
            ctx.save();
            ctx.beginPath();
            ctx.rect(x0, bbox.top, x1 - x0, bbox.height);
            ctx.clip();
            ctx.beginPath();
            for (let x = x0 - bbox.height; x < x1; x += 8 * devicePixelRatio) {
              ctx.moveTo(x, bbox.top + bbox.height);
              ctx.lineTo(x + bbox.height, bbox.top);
            }
            ctx.stroke();
            ctx.restore();
          }
        }
        ctx.restore();
      },
    },
  };
}

/**
 * A uPlot line chart over shared x timestamps (seconds); resizes with its container. `xRange` fixes the
 * time axis (the range picked); `bands` shade failures, maintenance and gaps behind the lines.
 */
export function TimeChart({
  x,
  series,
  label,
  unit = "ms",
  bands = [],
  xRange,
  dashed = [],
  spanGaps = true,
}: {
  x: number[];
  series: Series[];
  label: string;
  unit?: string;
  bands?: ChartBand[];
  xRange: [number, number];
  /** Labels of series drawn dashed (e.g. the higher percentiles). */
  dashed?: string[];
  /** Join a line over null values; false breaks it there (empty buckets, failed checks). */
  spanGaps?: boolean;
}) {
  const box = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);
  const bandsRef = useRef(bands);
  bandsRef.current = bands;
  const rangeRef = useRef(xRange);
  rangeRef.current = xRange;
  const shape = series.map((s) => s.label).join("|");
  useEffect(() => {
    const el = box.current!;
    const opts: uPlot.Options = {
      width: el.clientWidth || 600,
      height: 220,
      plugins: [bandsPlugin(bandsRef)],
      padding: [null, RIGHT_PAD, null, null],
      series: [
        {},
        ...series.map((s, i) => ({
          label: s.label,
          stroke: PALETTE[i % PALETTE.length],
          width: 2,
          ...(dashed.includes(s.label) ? { dash: [6, 4] } : {}),
          spanGaps,
          value: (_u: uPlot, v: number | null) => (v == null ? "—" : `${Math.round(v)} ${unit}`),
        })),
      ],
      // The axis is the range picked (or the data's span, widened around a lone point): never uPlot's guess.
      scales: { x: { time: true, auto: false, range: () => rangeRef.current } },
      axes: [{ stroke: "currentColor", space: X_TICK_SPACE }, { stroke: "currentColor", size: 70, values: (_u, vals) => vals.map((v) => `${v} ${unit}`) }],
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
    const p = plot.current;
    if (!p) return;
    p.setData([x, ...series.map((s) => s.values)] as uPlot.AlignedData, false);
    p.setScale("x", { min: xRange[0], max: xRange[1] });
  }, [x, series, xRange[0], xRange[1], bands]);
  return <div ref={box} className="chart" role="img" aria-label={label} data-x-min={xRange[0]} data-x-max={xRange[1]} />;
}

/** The key of the bands a chart shows, in words (only the kinds present). */
export function BandLegend({ bands }: { bands: ChartBand[] }) {
  const kinds = [...new Set(bands.map((b) => b.kind))];
  if (kinds.length === 0) return null;
  return (
    <p className="band-legend muted small" data-testid="band-legend">
      {kinds.map((k) => (
        <span key={k}>
          <span className={`swatch swatch-${k}`} aria-hidden="true" /> {BAND_LABEL[k]}
        </span>
      ))}
    </p>
  );
}
