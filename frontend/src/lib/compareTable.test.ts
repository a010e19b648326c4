/** Tests: Overload's compare table form and the code-difference rows. */
import { describe, expect, it } from "vitest";
import { codeRows, percentOf, quantileRows } from "./compareTable";

describe("quantileRows", () => {
  it("writes Overload's form with verdicts and intervals", () => {
    const rows = quantileRows({
      tests: [17742, 17743],
      quantiles_ms: { "50": [200, 204], "99": [1065, 1715], "98": [855, 1010] },
      diff_ms: { "50": [0, 4], "99": [0, 650], "98": [0, 155] },
      verdict: { "50": [null, "same"], "99": [null, "worse"], "98": [null, "worse"] },
      interval_ms: { "99": [null, [600, 700]] },
    });
    expect(rows.map((r) => r.level)).toEqual(["99", "98", "50"]);
    expect(rows[0]?.cells).toEqual([
      { text: "1065.000 ms", pct: null, verdict: null, interval: null },
      { text: "1715.000 (+650.000)", pct: "+61.0 %", verdict: "worse", interval: "600.000 … 700.000" },
    ]);
    expect(rows[2]?.cells[1]?.text).toBe("204.000 (+4.000)");
  });

  it("computes the difference where the API gives none", () => {
    const rows = quantileRows({
      tests: [1, 2, 3],
      quantiles_ms: { "99": [10, 12.5, 9] },
      diff_ms: {},
      verdict: {},
      interval_ms: {},
    });
    expect(rows[0]?.cells.map((c) => c.text)).toEqual(["10.000 ms", "12.500 (+2.500)", "9.000 (−1.000)"]);
    expect(rows[0]?.cells[1]?.verdict).toBeNull();
    expect(rows[0]?.cells.map((c) => c.pct)).toEqual([null, "+25.0 %", "−10.0 %"]);
  });

  it("says nothing relative to a zero or missing first value", () => {
    expect(percentOf(5, 0)).toBeNull();
    expect(percentOf(null, 10)).toBeNull();
    expect(percentOf(0, 10)).toBe("±0.0 %");
  });
});

describe("codeRows", () => {
  it("puts the codes that differ most first", () => {
    const rows = codeRows({ "200": [5000, 4990], "500": [0, 10], "404": [3, 3] }, 2);
    expect(rows.map((r) => r.code)).toEqual(["200", "500", "404"]);
    expect(rows[1]?.diffs).toEqual([0, 10]);
    expect(codeRows(undefined, 2)).toEqual([]);
  });
});
