// @vitest-environment jsdom
/** The Extended analysis tab: response phases, bytes, quantiles by load, instances and RPS. */
import { beforeEach, describe, expect, it, vi } from "vitest";
import { getChart } from "../../../api/endpoints";
import { CHART } from "../../../test/fixtures";
import { chartNames, renderWithApi } from "../../../test/renderWithApi";
import { ExtendedTab } from "./ExtendedTab";

vi.mock("../../../api/endpoints");
vi.mock("../../../components/charts/PlotlyFigure", () => import("../../../test/fakePlotly"));

const chart = vi.mocked(getChart);

describe("ExtendedTab", () => {
  beforeEach(() => {
    chart.mockReset();
  });

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
    expect(chart.mock.calls.map(([id, name, p]) => [id, name, p])).toEqual([
      [3, "times", params],
      [3, "sizes", params],
      [3, "quantiles_by_load", params],
      [3, "instances_rps", params],
    ]);
  });
});
