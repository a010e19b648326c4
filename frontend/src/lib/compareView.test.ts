/** Tests: the compare page's hash, the links written before it was read through the one URL-state helper included. */
import { describe, expect, it } from "vitest";
import { compareParams, parseCompareView, serializeCompareView } from "./compareView";

describe("parseCompareView", () => {
  it("reads a link the page wrote before (align, tags, window from each start)", () => {
    expect(parseCompareView("#align=start&tags=login,search%20api&slider_start=0&slider_end=70")).toEqual({
      align: "start",
      cases: ["login", "search api"],
      from: "0",
      to: "70",
    });
  });

  it("reads an absolute window and a link with only some of the names", () => {
    expect(parseCompareView("align=absolute&slider_start=1606174457")).toEqual({
      align: "absolute",
      cases: [],
      from: "1606174457",
      to: "",
    });
    expect(parseCompareView("#tags=login")).toEqual({ align: "start", cases: ["login"], from: "", to: "" });
  });

  it("falls back to the defaults for an empty or broken hash", () => {
    const empty = { align: "start", cases: [], from: "", to: "" };
    expect(parseCompareView("")).toEqual(empty);
    expect(parseCompareView("#align=sideways&slider_start=-5&slider_end=1.5&tags=,,")).toEqual(empty);
  });
});

describe("serializeCompareView", () => {
  it("writes the same text as the page always did, so written links stay as they were", () => {
    const hash = "align=start&tags=login,search%20api&slider_start=0&slider_end=70";
    expect(serializeCompareView(parseCompareView(hash))).toBe(hash);
    expect(serializeCompareView(parseCompareView(""))).toBe("align=start&tags=&slider_start=&slider_end=");
  });
});

describe("compareParams", () => {
  it("asks the API for the tests, the alignment, the window and the cases", () => {
    const view = parseCompareView("align=start&tags=a,b&slider_start=10&slider_end=70");
    expect(compareParams([3, 5], view)).toEqual([
      ["tests", "3,5"],
      ["align", "start"],
      ["from", "10"],
      ["to", "70"],
      ["case", "a"],
      ["case", "b"],
    ]);
    expect(compareParams([3, 5], parseCompareView(""))).toEqual([
      ["tests", "3,5"],
      ["align", "start"],
    ]);
  });
});
