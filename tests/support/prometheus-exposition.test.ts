import { describe, expect, it } from "bun:test";
import { fallenCounters, readExposition } from "./prometheus-exposition.ts";

const histogram = (buckets: [string, number][], count: number, extra = "") =>
  `# HELP h_seconds x\n# TYPE h_seconds histogram\n${buckets.map(([le, v]) => `h_seconds_bucket{m="a",le="${le}"} ${v}\n`).join("")}h_seconds_sum{m="a"} 1\nh_seconds_count{m="a"} ${count}\n${extra}`;

describe("readExposition", () => {
  it("reads a valid scrape with escaped labels, a counter and a histogram", () => {
    const text = `# HELP c_total x\n# TYPE c_total counter\nc_total{m="a\\"b\\\\c\\nd",s="up"} 3\n${histogram([["0.1", 1], ["1", 2], ["+Inf", 3]], 3)}`;
    const exp = readExposition(text);
    expect(exp.types.get("h_seconds")).toBe("histogram");
    expect(exp.samples.get('c_total{m="a\\"b\\\\c\\nd",s="up"}')).toBe(3);
  });

  it.each([
    ["TYPE twice", "# TYPE g gauge\n# TYPE g gauge\ng 1\n", /TYPE twice/],
    ["HELP twice", "# HELP g x\n# HELP g y\ng 1\n", /HELP twice/],
    ["a family in two pieces", "# TYPE g gauge\ng{a=\"1\"} 1\n# TYPE f gauge\nf 1\ng{a=\"2\"} 1\n", /not in one piece/],
    ["a duplicate series", "# TYPE g gauge\ng{a=\"1\"} 1\ng{a=\"1\"} 2\n", /duplicate/],
    ["a bad escape", '# TYPE g gauge\ng{a="\\t"} 1\n', /bad escape/],
    ["buckets that fall", histogram([["0.1", 2], ["1", 1], ["+Inf", 2]], 2), /not cumulative/],
    ["no +Inf bucket", histogram([["0.1", 1], ["1", 2]], 2), /\+Inf/],
    ["+Inf other than _count", histogram([["0.1", 1], ["+Inf", 2]], 3), /_count 3/],
    ["a counter without _total", "# TYPE c counter\nc 1\n", /_total/],
  ])("refuses %s", (_, text, error) => {
    expect(() => readExposition(text)).toThrow(error);
  });
});

describe("fallenCounters", () => {
  it("lists counters and histogram samples that fell between two scrapes, not gauges", () => {
    const scrape = (c: number, g: number, n: number) =>
      readExposition(`# TYPE c_total counter\nc_total 5\n# TYPE x_total counter\nx_total ${c}\n# TYPE g gauge\ng ${g}\n${histogram([["1", n], ["+Inf", n]], n)}`);
    expect(fallenCounters(scrape(3, 9, 4), scrape(3, 1, 4))).toEqual([]);
    expect(fallenCounters(scrape(3, 9, 4), scrape(2, 9, 3))).toEqual([
      "x_total{}: 3 → 2",
      'h_seconds_bucket{le="1",m="a"}: 4 → 3',
      'h_seconds_bucket{le="+Inf",m="a"}: 4 → 3',
      'h_seconds_count{m="a"}: 4 → 3',
    ]);
  });
});
