/** Tests: The report's view state in the hash, Overload's links included. */
import { describe, expect, it } from "vitest";
import { setTimeZoneMode } from "./timeZone";
import { DEFAULT_VIEW, parseViewState, selectionLabel, serializeViewState, windowParams } from "./viewState";

describe("parseViewState", () => {
  it("reads an Overload link as it was", () => {
    const s = parseViewState(
      "#tab=test_data&tags=&plot_groups=main&machines=&metrics=&slider_start=1606174457&slider_end=1606174789&compress_ratio=1",
    );
    expect(s).toEqual({
      ...DEFAULT_VIEW,
      tab: "test_data",
      from: 1606174457,
      to: 1606174789,
      compressRatio: 1,
    });
  });

  it("falls back to defaults for an empty or broken hash", () => {
    expect(parseViewState("")).toEqual(DEFAULT_VIEW);
    expect(parseViewState("#")).toEqual(DEFAULT_VIEW);
    const s = parseViewState("#tab=nope&slider_start=abc&slider_end=-5&compress_ratio=0.5");
    expect(s.tab).toBe("test_data");
    expect(s.from).toBeNull();
    expect(s.to).toBeNull();
    expect(s.compressRatio).toBeNull();
  });

  it("reads cases, monitoring filters, aliases and milliseconds", () => {
    const s = parseViewState(
      "tab=monitoring&tags=login,search%20api&machines=db1,db2&metrics=cpu&slider_start=1606174457000&slider_end=1606174789000",
    );
    expect(s.tab).toBe("monitoring");
    expect(s.cases).toEqual(["login", "search api"]);
    expect(s.machines).toEqual(["db1", "db2"]);
    expect(s.metrics).toEqual(["cpu"]);
    expect(s.from).toBe(1606174457);
    expect(s.to).toBe(1606174789);
    expect(parseViewState("tab=configs").tab).toBe("config");
    expect(parseViewState("tab=Distributions").tab).toBe("distributions");
  });

  it("swaps a reversed window and accepts auto resolution", () => {
    const s = parseViewState("slider_start=200&slider_end=100&compress_ratio=auto");
    expect([s.from, s.to]).toEqual([100, 200]);
    expect(s.compressRatio).toBeNull();
  });
});

describe("serializeViewState", () => {
  it("writes Overload's names in Overload's order", () => {
    const hash = serializeViewState({ ...DEFAULT_VIEW, from: 1606174457, to: 1606174789, compressRatio: 1 });
    expect(hash).toBe(
      "tab=test_data&tags=&plot_groups=main&machines=&metrics=&slider_start=1606174457&slider_end=1606174789&compress_ratio=1",
    );
  });

  it("round-trips every field", () => {
    const state = {
      ...DEFAULT_VIEW,
      tab: "distributions" as const,
      cases: ["a b", "c&d", "x,y?"].slice(0, 2),
      from: 10,
      to: 20,
      compressRatio: 5,
      machines: ["h1"],
      metrics: ["cpu", "mem"],
      log: true,
    };
    expect(parseViewState(serializeViewState(state))).toEqual(state);
  });
});

describe("windowParams", () => {
  it("includes the slider's end second in the half-open API window", () => {
    expect(windowParams({ from: 100, to: 200, cases: ["a", "b"] })).toEqual([
      ["from", "100"],
      ["to", "201"],
      ["case", "a"],
      ["case", "b"],
    ]);
    expect(windowParams({ from: null, to: null, cases: [] })).toEqual([]);
  });
});

describe("old links, normalised once into the current form", () => {
  it("rewrites the short names (from, to, case) and a bare tab in Overload's names, same view", () => {
    const old = "#tab=table&from=1606174457&to=1606174789&case=login&case=search";
    const now = serializeViewState(parseViewState(old));
    expect(now).toBe(
      "tab=tables&tags=login,search&plot_groups=main&machines=&metrics=&slider_start=1606174457&slider_end=1606174789&compress_ratio=",
    );
    expect(parseViewState(now)).toEqual(parseViewState(old));
  });

  it("keeps an Overload link's text as it is", () => {
    const overload =
      "tab=test_data&tags=&plot_groups=main&machines=&metrics=&slider_start=1606174457&slider_end=1606174789&compress_ratio=1";
    expect(serializeViewState(parseViewState(overload))).toBe(overload);
  });
});

describe("selectionLabel", () => {
  const bounds = { first: 1606174400, last: 1606174800 };
  it("names the whole test, the window, the cases", () => {
    setTimeZoneMode("utc");
    expect(selectionLabel({ from: null, to: null, cases: [] }, bounds)).toBe("whole test");
    expect(selectionLabel({ from: 1606174457, to: 1606174789, cases: [] }, bounds)).toBe("23:34:17–23:39:49");
    expect(selectionLabel({ from: null, to: null, cases: ["login"] }, bounds)).toBe("case login");
    // An open end is the test's own bound.
    expect(selectionLabel({ from: 1606174457, to: null, cases: ["a", "b"] }, bounds)).toBe("23:34:17–23:40:00, cases a, b");
  });
});
