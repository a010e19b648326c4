/** Tests: Display formatters: three-decimal ms, Overload's diff cells, shares, counts, durations, times. */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  formatBytes,
  formatCount,
  formatFixed,
  parseDateTime,
  formatDuration,
  formatLoadScheme,
  formatMs,
  formatMsWithDiff,
  formatPercent,
  formatSignedPercent,
  formatUnix,
  sortLevels,
} from "./format";

/** The cases analytics/definitions.py's formatters are tested on too: a figure reads the same in a page and in
 * a sentence the server wrote (a finding, the chat preview, the compare summary). */
const SHARED = JSON.parse(
  readFileSync(new URL("../../../analytics/tests/fixtures/format_cases.json", import.meta.url), "utf8"),
) as { cases: { fn: string; args: (number | null)[]; out: string }[] };
const FORMATTERS: Record<string, (...args: never[]) => string> = {
  fixed: formatFixed,
  percent: formatPercent,
  signedPercent: formatSignedPercent,
  ms: formatMs,
  count: formatCount,
};

describe("numbers read as the server writes them", () => {
  it.each(SHARED.cases)("$fn($args) is $out", ({ fn, args, out }) => {
    const format = FORMATTERS[fn] as (...args: (number | null)[]) => string;
    expect(format(...args)).toBe(out);
  });
});

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

  it("sorts levels numerically", () => {
    expect(sortLevels(["99.9", "50", "100", "99"])).toEqual(["50", "99", "99.9", "100"]);
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

describe("formatBytes", () => {
  it("scales to binary units with three significant figures", () => {
    expect(formatBytes(0)).toBe("0 B");
    expect(formatBytes(512)).toBe("512 B");
    expect(formatBytes(1536)).toBe("1.50 KiB");
    expect(formatBytes(20.3 * 1024 ** 2)).toBe("20.3 MiB");
    expect(formatBytes(150 * 1024 ** 3)).toBe("150 GiB");
    expect(formatBytes(-2048)).toBe("-2.00 KiB");
    expect(formatBytes(null)).toBe("—");
  });
});
