import { PNG } from "pngjs";

export interface ChartBar {
  uptime_pct: number | null;
}

export interface UptimeChart {
  png: Buffer;
  width: number;
  height: number;
  /** Uptime at the bottom of the chart (the top is 100 %); the email prints it beside the image. */
  floor_pct: number;
}

type Rgb = [number, number, number];
const BACKGROUND: Rgb = [255, 255, 255];
const GRID: Rgb = [226, 232, 240];
const NO_DATA: Rgb = [203, 213, 225];

/** The status colours of the dashboard and status pages. */
export function barColour(pct: number | null): Rgb {
  if (pct === null) return NO_DATA;
  if (pct >= 99.9) return [22, 163, 74];
  if (pct >= 99) return [132, 204, 22];
  if (pct >= 95) return [245, 158, 11];
  return [220, 38, 38];
}

/** The bottom of the scale: 95 % unless a day was lower, then the next multiple of 5 below it. */
export function chartFloor(bars: readonly ChartBar[]): number {
  const lowest = Math.min(100, ...bars.map((b) => b.uptime_pct ?? 100));
  return Math.max(0, Math.min(95, Math.floor(lowest / 5) * 5 - (lowest % 5 === 0 && lowest < 95 ? 5 : 0)));
}

/**
 * Daily uptime as a bar chart in PNG, drawn in-process (pngjs, no external service and no fonts):
 * one bar per day, its height between the floor and 100 %, its colour the status colour. A day
 * without checks is a short grey bar. Mail clients show it inline from a cid: attachment.
 */
export function renderUptimeChart(bars: readonly ChartBar[], width = 560, height = 120): UptimeChart {
  const png = new PNG({ width, height });
  const put = (x: number, y: number, [r, g, b]: Rgb) => {
    const i = (y * width + x) * 4;
    png.data[i] = r;
    png.data[i + 1] = g;
    png.data[i + 2] = b;
    png.data[i + 3] = 255;
  };
  const rect = (x0: number, y0: number, x1: number, y1: number, c: Rgb) => {
    for (let y = Math.max(0, y0); y < Math.min(height, y1); y++) for (let x = Math.max(0, x0); x < Math.min(width, x1); x++) put(x, y, c);
  };
  rect(0, 0, width, height, BACKGROUND);
  const floor = chartFloor(bars);
  const top = 4;
  const bottom = height - 4;
  rect(0, top, width, top + 1, GRID);
  rect(0, bottom - 1, width, bottom, GRID);
  const n = Math.max(1, bars.length);
  const slot = width / n;
  const gap = Math.max(1, Math.round(slot * 0.2));
  bars.forEach((bar, i) => {
    const x0 = Math.round(i * slot) + Math.floor(gap / 2);
    const x1 = Math.round((i + 1) * slot) - Math.ceil(gap / 2);
    const share = bar.uptime_pct === null ? 0.08 : Math.max(0.04, (bar.uptime_pct - floor) / (100 - floor));
    const y0 = Math.round(bottom - share * (bottom - top));
    rect(x0, y0, x1, bottom, barColour(bar.uptime_pct));
  });
  return { png: PNG.sync.write(png), width, height, floor_pct: floor };
}
