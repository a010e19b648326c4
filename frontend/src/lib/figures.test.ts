/** Tests: Finding figures in API answers, reading zoomed axes as unix seconds, marking findings on time charts. */
import { describe, expect, it } from "vitest";
import { axisValueToUnix, collectFigures, markOverlays, zoomToWindow } from "./figures";

const fig = (title: string) => ({ data: [{ x: [1], y: [2] }], layout: { title } });

describe("collectFigures", () => {
  it("finds figures in a list of hosts with groups", () => {
    const found = collectFigures({
      hosts: [
        { host: "db1", groups: [{ name: "cpu", figure: fig("a") }, { name: "memory", figure: fig("b") }] },
        { host: "web1", groups: [{ name: "cpu", figure: fig("c") }] },
      ],
    });
    expect(found.map((f) => f.path)).toEqual([
      ["db1", "cpu"],
      ["db1", "memory"],
      ["web1", "cpu"],
    ]);
  });

  it("finds figures in nested dicts keyed by name", () => {
    const found = collectFigures({ db1: { cpu: fig("a"), disk: { figure: fig("b") } } });
    expect(found.map((f) => f.path)).toEqual([
      ["db1", "cpu"],
      ["db1", "disk"],
    ]);
    expect(collectFigures({ nothing: 1 })).toEqual([]);
  });
});

describe("zoom", () => {
  it("reads axis values as unix seconds", () => {
    expect(axisValueToUnix(1606174457)).toBe(1606174457);
    expect(axisValueToUnix(1606174457000)).toBe(1606174457);
    expect(axisValueToUnix("2020-11-23 23:34:17")).toBe(1606174457);
    expect(axisValueToUnix("2020-11-23T23:34:17.5Z")).toBe(1606174457.5);
    expect(axisValueToUnix("nonsense")).toBeNull();
  });

  it("clamps a zoom to the test and ignores non-time axes", () => {
    const bounds = { first: 1606174400, last: 1606174800 };
    expect(zoomToWindow("2020-11-23 23:34:17.4", 1606174900, bounds)).toEqual({ from: 1606174457, to: 1606174800 });
    expect(zoomToWindow(10, 200, bounds)).toBeNull();
  });
});

describe("markOverlays", () => {
  const marks = [
    { ts: 1000, label: "imbalance" },
    { ts: 5000, label: "outside" },
  ];
  it("marks the moments inside a time chart's range", () => {
    const out = markOverlays({ xaxis: { type: "date", range: [0, 2_000_000] }, shapes: [{ keep: 1 }] }, marks);
    expect(out.shapes).toEqual([
      { keep: 1 },
      expect.objectContaining({ type: "line", x0: 1_000_000, x1: 1_000_000, yref: "paper" }),
    ]);
    expect(out.annotations).toEqual([expect.objectContaining({ x: 1_000_000, text: "imbalance" })]);
  });
  it("leaves charts that are not on a time axis alone", () => {
    expect(markOverlays({ xaxis: { title: "responses/s" } }, marks)).toEqual({});
    expect(markOverlays({ xaxis: { type: "date" } }, [])).toEqual({});
  });
});
