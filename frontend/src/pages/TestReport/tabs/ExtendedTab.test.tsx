// @vitest-environment jsdom
/** The Extended analysis tab: response phases, bytes, quantiles by load, instances and RPS. */
import { describe, expect, it, vi } from "vitest";
import { getChart } from "../../../api/endpoints";
import { CHART } from "../../../test/fixtures";
import { chartNames, renderWithApi } from "../../../test/renderWithApi";
import { ExtendedTab } from "./ExtendedTab";

vi.mock("../../../api/endpoints");
vi.mock("../../../components/charts/PlotlyFigure", () => import("../../../test/fakePlotly"));

const chart = vi.mocked(getChart);

describe("ExtendedTab", () => {
  it("draws its four charts, each asked by name for the window", async () => {
    chart.mockResolvedValue(CHART);
    const params: [string, string][] = [
      ["slider_start", "100"],
      ["compress_ratio", "5"],
    ];
    renderWithApi(<ExtendedTab testId={3} params={params} onXRange={() => undefined} />);
    expect(await chartNames(4)).toEqual([
      "Mean connect, send, latency and receive times",
      "Bytes in and out",
      "Quantiles by load",
      "Instances and RPS",
    ]);
    expect(chart.mock.calls.map(([, name]) => name)).toEqual(["times", "sizes", "quantiles_by_load", "instances_rps"]);
    expect(chart.mock.calls.every(([id, , asked]) => id === 3 && asked === params)).toBe(true);
  });
});
