// @vitest-environment jsdom
/** The Tables tab as a reader sees it: the figures of the window in their tables, and what it says instead. */
import { screen, within } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";
import { ApiError } from "../../../api/client";
import { getTables } from "../../../api/endpoints";
import { TABLES, outcomes } from "../../../test/fixtures";
import { renderWithApi } from "../../../test/renderWithApi";
import { TablesTab } from "./TablesTab";

vi.mock("../../../api/endpoints");

const tables = vi.mocked(getTables);

/** The cells of a table's row whose heading is `heading`, as text. */
function rowCells(table: HTMLElement, heading: string): string[] {
  const row = within(table).getByRole("rowheader", { name: heading }).closest("tr");
  if (!row) throw new Error(`no row ${heading}`);
  return within(row)
    .getAllByRole("cell")
    .map((c) => c.textContent ?? "");
}

describe("TablesTab", () => {
  it("asks for the window's tables with Overload's quantile levels", async () => {
    tables.mockResolvedValue(TABLES);
    renderWithApi(<TablesTab testId={7} params={[["slider_start", "100"]]} />);
    await screen.findByRole("region", { name: "Cumulative quantiles" });
    expect(tables).toHaveBeenCalledWith(
      7,
      [
        ["slider_start", "100"],
        ["q", "50,75,80,85,90,95,98,99,99.5,99.9,100"],
      ],
      expect.anything(),
    );
  });

  it("shows the cumulative quantiles per case, in ms, and says they are exact", async () => {
    tables.mockResolvedValue(TABLES);
    renderWithApi(<TablesTab testId={7} params={[]} />);
    const card = await screen.findByRole("region", { name: "Cumulative quantiles" });
    expect(within(card).getByRole("heading", { level: 2 }).textContent).toContain("exact, from raw samples");
    const headers = within(card)
      .getAllByRole("columnheader")
      .map((h) => h.textContent);
    expect(headers).toEqual(["Quantile", "All requests", "login", "pay"]);
    expect(rowCells(card, "99%")).toEqual(["120.500", "99.000", "140.750"]);
    expect(rowCells(card, "50%")).toEqual(["12.000", "10.250", "14.000"]);
  });

  it("says quantiles from histograms are not exact", async () => {
    tables.mockResolvedValue({ ...TABLES, exact: false });
    renderWithApi(<TablesTab testId={7} params={[]} />);
    const card = await screen.findByRole("region", { name: "Cumulative quantiles" });
    expect(within(card).getByRole("heading", { level: 2 }).textContent).toContain("not exact");
  });

  it("counts the codes with their meaning and share", async () => {
    tables.mockResolvedValue(TABLES);
    renderWithApi(<TablesTab testId={7} params={[]} />);
    const http = await screen.findByRole("region", { name: "HTTP codes" });
    expect(rowCells(http, "200")).toEqual(["OK", "9\u2009990", "99.90 %"]);
    expect(rowCells(http, "500")).toEqual(["Internal Server Error", "10", "0.10 %"]);
    const net = screen.getByRole("region", { name: "Net codes" });
    expect(rowCells(net, "0")).toEqual(["Success", "10\u2009000", "100.00 %"]);
  });

  it("counts the responses per time interval", async () => {
    tables.mockResolvedValue(TABLES);
    renderWithApi(<TablesTab testId={7} params={[]} />);
    const intervals = await screen.findByRole("region", { name: "Response time intervals" });
    expect(rowCells(intervals, "100 – 1\u2009000")).toEqual(["200", "2.00 %"]);
  });

  it("sums each case up, the whole window first", async () => {
    tables.mockResolvedValue(TABLES);
    renderWithApi(<TablesTab testId={7} params={[]} />);
    const cases = await screen.findByRole("region", { name: "Cases" });
    expect(rowCells(cases, "All requests").slice(0, 5)).toEqual(["10\u2009000", "16.7", "1\u2009000", "20.125", "10 (0.10 %)"]);
    expect(rowCells(cases, "pay")[0]).toBe("6\u2009000");
  });

  it("says when the window has no responses instead of empty tables", async () => {
    tables.mockResolvedValue({
      ...TABLES,
      cases: [{ case: "", count: 0, rps_mean: 0, rps_max: 0, mean_ms: null, outcomes: outcomes(0, 0) }],
    });
    renderWithApi(<TablesTab testId={7} params={[]} />);
    expect(await screen.findByText("No responses in this window.")).toBeTruthy();
    expect(screen.queryByRole("table")).toBeNull();
  });

  it("says what went wrong when the tables cannot be loaded", async () => {
    tables.mockRejectedValue(new ApiError(500, "ClickHouse is down"));
    renderWithApi(<TablesTab testId={7} params={[]} />);
    const alert = await screen.findByRole("alert");
    expect(alert.textContent).toBe("Could not load the tables (500): ClickHouse is down");
  });

  it("shows that it loads until the answer comes", () => {
    tables.mockReturnValue(new Promise(() => undefined));
    renderWithApi(<TablesTab testId={7} params={[]} />);
    expect(screen.getByRole("status").textContent).toContain("Loading tables");
  });
});
