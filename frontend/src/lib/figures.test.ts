import { describe, expect, it } from "vitest";
import { axisValueToUnix, collectFigures, zoomToWindow } from "./figures";

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
