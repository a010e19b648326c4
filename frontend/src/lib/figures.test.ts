/** Tests: Finding figures in API answers, reading zoomed axes as unix seconds, marking findings on time charts. */
import { describe, expect, it } from "vitest";
import { axisValueToUnix, collectFigures, labelRows, markOverlays, zoomToWindow } from "./figures";

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

describe("labels of marks", () => {
  it("puts labels that fall close together on separate rows", () => {
    expect(labelRows([0, 1, 100, 2, 300], 50)).toEqual([0, 1, 0, 2, 0]);
  });

  it("shows a mark's text as text, not HTML, on its own row when it collides", () => {
    const out = markOverlays({ xaxis: { type: "date", range: [0, 600_000] } }, [
      { ts: 100, label: '<a href="https://evil.example">x</a>' },
      { ts: 101, label: "GC & pause", colour: "#1f77b4" },
    ]);
    const [a, b] = out.annotations as { text: string; y: number; font: { color: string } }[];
    expect(a?.text).toBe('&lt;a href="https://evil.example"&gt;x&lt;/a&gt;');
    expect(b?.text).toBe("GC &amp; pause");
    expect(a?.y).not.toBe(b?.y);
    expect(b?.font.color).toBe("#1f77b4");
  });
});
