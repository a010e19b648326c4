// @vitest-environment jsdom
/** The Distributions tab: one chart for the selection, one per chosen case, and the log scale switch. */
import { screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { getChart } from "../../../api/endpoints";
import { CHART } from "../../../test/fixtures";
import { chartNames, renderWithApi } from "../../../test/renderWithApi";
import { DistributionsTab } from "./DistributionsTab";

vi.mock("../../../api/endpoints");
vi.mock("../../../components/charts/PlotlyFigure", () => import("../../../test/fakePlotly"));

const chart = vi.mocked(getChart);
const params: [string, string][] = [
  ["case", "login"],
  ["case", "pay"],
];

describe("DistributionsTab", () => {
  beforeEach(() => {
    chart.mockResolvedValue(CHART);
  });

  it("draws the whole selection's distribution when no case is chosen", async () => {
    renderWithApi(<DistributionsTab testId={7} params={[]} cases={[]} log={false} onLog={() => undefined} />);
    expect(await chartNames(1)).toEqual(["Response time distribution"]);
    expect(chart).toHaveBeenCalledWith(7, "distribution", [], expect.anything());
  });

  it("adds one chart per chosen case, each asked for its case alone", async () => {
    renderWithApi(<DistributionsTab testId={7} params={params} cases={["login", "pay"]} log={false} onLog={() => undefined} />);
    expect(await chartNames(3)).toEqual([
      "Response time distribution: login, pay",
      "Response time distribution: login",
      "Response time distribution: pay",
    ]);
    expect(chart.mock.calls.map(([, , p]) => p)).toEqual([params, [["case", "login"]], [["case", "pay"]]]);
  });

  it("asks the server for the log axis when the scale is logarithmic", async () => {
    renderWithApi(<DistributionsTab testId={7} params={[]} cases={[]} log onLog={() => undefined} />);
    await screen.findByRole("figure");
    expect(chart).toHaveBeenCalledWith(7, "distribution", [["log", "true"]], expect.anything());
    expect((screen.getByRole("checkbox", { name: "Logarithmic scale" }) as HTMLInputElement).checked).toBe(true);
  });

  it("switches the scale with its checkbox", async () => {
    const onLog = vi.fn();
    renderWithApi(<DistributionsTab testId={7} params={[]} cases={[]} log={false} onLog={onLog} />);
    await userEvent.click(screen.getByRole("checkbox", { name: "Logarithmic scale" }));
    expect(onLog).toHaveBeenCalledWith(true);
  });
});
