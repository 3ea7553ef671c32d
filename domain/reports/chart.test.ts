import { describe, expect, it } from "bun:test";
import { PNG } from "pngjs";
import { barColour, chartFloor, renderUptimeChart } from "./chart.ts";

const pixel = (png: PNG, x: number, y: number) => [...png.data.subarray((y * png.width + x) * 4, (y * png.width + x) * 4 + 3)];

describe("uptime chart", () => {
  it("draws a decodable PNG with one bar per day in the day's status colour", () => {
    const chart = renderUptimeChart([{ uptime_pct: 100 }, { uptime_pct: 90 }, { uptime_pct: null }, { uptime_pct: 99.5 }], 400, 100);
    const png = PNG.sync.read(chart.png);
    expect([png.width, png.height]).toEqual([400, 100]);
    expect(chart.floor_pct).toBe(85);
    // Middle of each 100-px slot, just above the baseline.
    expect(pixel(png, 50, 94)).toEqual(barColour(100));
    expect(pixel(png, 150, 94)).toEqual(barColour(90));
    expect(pixel(png, 250, 94)).toEqual(barColour(null));
    expect(pixel(png, 350, 94)).toEqual(barColour(99.5));
    // A full day reaches the top; the 90 % day stops a third of the way up (85..100 scale); no data stays short.
    expect(pixel(png, 50, 6)).toEqual(barColour(100));
    expect(pixel(png, 150, 30)).toEqual([255, 255, 255]);
    expect(pixel(png, 250, 80)).toEqual([255, 255, 255]);
  });

  it("starts the scale at 95 % unless a day was lower", () => {
    expect(chartFloor([{ uptime_pct: 99.99 }, { uptime_pct: null }])).toBe(95);
    expect(chartFloor([{ uptime_pct: 96 }])).toBe(95);
    expect(chartFloor([{ uptime_pct: 93.2 }])).toBe(90);
    expect(chartFloor([{ uptime_pct: 80 }])).toBe(75);
    expect(chartFloor([{ uptime_pct: 0 }])).toBe(0);
  });
});
