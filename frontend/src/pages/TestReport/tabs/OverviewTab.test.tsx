// @vitest-environment jsdom
/** The Overview tab: the quantiles with RPS, the HTTP and the net codes, each asked for the view's window. */
import { screen, within } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";
import { ApiError } from "../../../api/client";
import { getChart } from "../../../api/endpoints";
import { CHART } from "../../../test/fixtures";
import { chartNames, renderWithApi } from "../../../test/renderWithApi";
import { OverviewTab } from "./OverviewTab";

vi.mock("../../../api/endpoints");
vi.mock("../../../components/charts/PlotlyFigure", () => import("../../../test/fakePlotly"));

const chart = vi.mocked(getChart);
const params: [string, string][] = [["compress_ratio", "auto"]];

describe("OverviewTab", () => {
  it("draws the three time charts in order, each asked with the view's parameters", async () => {
    chart.mockResolvedValue(CHART);
    renderWithApi(<OverviewTab testId={7} params={params} onXRange={() => undefined} />);
    expect(await chartNames(3)).toEqual([
      "Response time quantiles and RPS",
      "HTTP codes",
      "Net codes",
    ]);
    expect(chart.mock.calls.map(([, name]) => name)).toEqual(["quantiles", "http_codes", "net_codes"]);
    for (const [id, , asked] of chart.mock.calls) expect([id, asked]).toEqual([7, params]);
  });

  it("keeps a chart's heading for screen readers when the figure titles itself", async () => {
    chart.mockImplementation(async (_id, name) =>
      name === "quantiles" ? { ...CHART, figure: { ...CHART.figure, layout: { title: "Quantiles" } } } : CHART,
    );
    renderWithApi(<OverviewTab testId={7} params={params} onXRange={() => undefined} />);
    const quantiles = await screen.findByRole("region", { name: "Response time quantiles and RPS" });
    await within(quantiles).findByRole("figure");
    expect(within(quantiles).getByRole("heading").className).toBe("sr-only");
    const codes = screen.getByRole("region", { name: "HTTP codes" });
    expect(within(codes).getByRole("heading").className).toBe("");
  });

  it("says which chart failed and draws the others", async () => {
    chart.mockImplementation(async (_id, name) => {
      if (name === "http_codes") throw new ApiError(500, "query timed out");
      return CHART;
    });
    renderWithApi(<OverviewTab testId={7} params={params} onXRange={() => undefined} />);
    const codes = screen.getByRole("region", { name: "HTTP codes" });
    expect((await within(codes).findByRole("alert")).textContent).toBe(
      "Could not load the http codes chart (500): query timed out",
    );
    expect(await screen.findByRole("figure", { name: "Net codes" })).toBeTruthy();
    expect(screen.getByRole("figure", { name: "Response time quantiles and RPS" })).toBeTruthy();
  });

  it("shows each chart loading until its answer comes", () => {
    chart.mockReturnValue(new Promise(() => undefined));
    renderWithApi(<OverviewTab testId={7} params={params} onXRange={() => undefined} />);
    expect(screen.getAllByRole("status").map((s) => s.textContent?.trim())).toEqual([
      "Loading response time quantiles and rps…",
      "Loading http codes…",
      "Loading net codes…",
    ]);
  });
});
