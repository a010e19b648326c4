/** Tests: Display formatters: three-decimal ms, Overload's diff cells, shares, counts, durations, times. */
import { describe, expect, it } from "vitest";
import {
  codeShares,
  formatCount,
  parseDateTime,
  formatDuration,
  formatLoadScheme,
  formatMs,
  formatMsWithDiff,
  formatPercent,
  formatUnix,
  netCodeName,
  sortLevels,
} from "./format";

describe("formatters", () => {
  it("shows quantiles in ms with three decimals", () => {
    expect(formatMs(1065)).toBe("1065.000");
    expect(formatMs(0.1234)).toBe("0.123");
    expect(formatMs(null)).toBe("—");
    expect(formatMs(NaN)).toBe("—");
  });

  it("writes compare cells in Overload's form", () => {
    expect(formatMsWithDiff(1715, 650)).toBe("1715.000 (+650.000)");
    expect(formatMsWithDiff(200, -4)).toBe("200.000 (−4.000)");
    expect(formatMsWithDiff(200, 0)).toBe("200.000 (+0.000)");
    expect(formatMsWithDiff(1065, null)).toBe("1065.000");
    expect(formatMsWithDiff(null, 5)).toBe("—");
  });

  it("formats shares, counts and durations", () => {
    expect(formatPercent(0.99512)).toBe("99.51 %");
    expect(formatPercent(0.00001)).toBe("<0.01 %");
    expect(formatPercent(0)).toBe("0.00 %");
    expect(formatCount(1234567)).toBe("1\u2009234\u2009567");
    expect(formatCount(411.5)).toBe("412");
    expect(formatCount(41.25)).toBe("41.3");
    expect(formatDuration(3723)).toBe("1h 02m 03s");
    expect(formatDuration(300)).toBe("5m 00s");
    expect(formatDuration(42)).toBe("42s");
  });

  it("formats unix seconds in UTC on request", () => {
    expect(formatUnix(1606174457, true)).toBe("2020-11-23 23:34:17");
    expect(formatUnix(null)).toBe("—");
  });

  it("renders the tank's load schemes", () => {
    expect(formatLoadScheme(["line(1,10000,5m)", "const(10000,10m)"])).toBe("line(1,10000,5m) const(10000,10m)");
    expect(formatLoadScheme([{ type: "line", from: 1, to: 100, duration: "1m" }])).toBe("line(1,100,1m)");
    expect(formatLoadScheme([])).toBe("—");
  });

  it("sorts levels numerically and names net codes", () => {
    expect(sortLevels(["99.9", "50", "100", "99"])).toEqual(["50", "99", "99.9", "100"]);
    expect(netCodeName("110")).toBe("Connection timed out");
    expect(netCodeName("12345")).toBe("");
  });

  it("computes the header's shares", () => {
    expect(codeShares(100, { "200": 90, "204": 5, "500": 3, "0": 2 }, { "0": 98, "110": 2 })).toEqual({
      ok2xx: 0.95,
      netErrors: 0.02,
    });
    expect(codeShares(0, {}, {})).toEqual({ ok2xx: null, netErrors: null });
  });
});

describe("parseDateTime", () => {
  it("reads a typed time in UTC and round-trips formatUnix", () => {
    expect(parseDateTime("2020-11-23 23:34:17", true)).toBe(1606174457);
    expect(parseDateTime("2020-11-23T23:34", true)).toBe(1606174440);
    expect(parseDateTime(formatUnix(1606174457, false), false)).toBe(1606174457);
    expect(parseDateTime("yesterday", true)).toBeNull();
    expect(parseDateTime("2020-13-01 00:00", true)).toBeNull();
  });
});
