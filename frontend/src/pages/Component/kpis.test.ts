/** Tests: KPI titles, values and threshold sentences on the component page. */
import { describe, expect, it } from "vitest";
import type { KpiSeriesJson } from "../../api/types";
import { rowsToKpis } from "./KpiEditor";
import { formatKpi, kpiTitle, thresholdText } from "./kpis";

const series = (patch: Partial<KpiSeriesJson>): KpiSeriesJson => ({
  kpi: "q99",
  title: "99% quantile",
  unit: "ms",
  direction: "higher_is_worse",
  threshold: { kind: "relative", value: 20 },
  limit: 120,
  baseline_value: 100,
  points: [],
  change_points: [],
  figure: { data: [], layout: {} },
  ...patch,
});

describe("component KPIs", () => {
  it("names and formats them", () => {
    expect(kpiTitle("q99.9")).toBe("99.9% quantile");
    expect(kpiTitle("max_rps")).toBe("Max RPS");
    expect(formatKpi("ms", 12.5)).toBe("12.500 ms");
    expect(formatKpi("", 0.015)).toBe("1.50 %");
    expect(formatKpi("RPS", null)).toBe("—");
  });

  it("says where a threshold lies", () => {
    expect(thresholdText(series({}))).toBe("fails above 120.000 ms (20 % over the baseline's 100.000 ms)");
    expect(thresholdText(series({ threshold: { kind: "absolute", value: 500 }, limit: 500 }))).toBe(
      "fails above 500.000 ms",
    );
    expect(
      thresholdText(series({ unit: "RPS", direction: "lower_is_worse", threshold: { kind: "absolute", value: 900 }, limit: 900 })),
    ).toBe("fails below 900 RPS");
    expect(thresholdText(series({ limit: null, baseline_value: null }))).toMatch(/no baseline value/);
    expect(thresholdText(series({ threshold: null }))).toBe("no threshold");
  });

  it("turns the editor's rows into the API's list, naming a bad row", () => {
    expect(
      rowsToKpis([
        { kpi: "q99", kind: "relative", value: "10" },
        { kpi: "max_rps", kind: "", value: "" },
      ]),
    ).toEqual([
      { kpi: "q99", threshold: { kind: "relative", value: 10 } },
      { kpi: "max_rps", threshold: null },
    ]);
    expect(rowsToKpis([{ kpi: "q99", kind: "absolute", value: "ten" }])).toBe(
      "row 1 (q99): the threshold needs a number ≥ 0",
    );
  });
});
