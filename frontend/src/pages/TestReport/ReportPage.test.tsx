// @vitest-environment jsdom
/**
 * The report page with the API answering fixed figures: the tab switcher shows each section's content, the choice
 * goes into the link, and a missing, private, failed or empty test says so instead of drawing nothing.
 */
import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { ApiError } from "../../api/client";
import * as api from "../../api/endpoints";
import { CHART, CONFIG, MONITORING, REPORT, SUMMARY, TABLES, TEST } from "../../test/fixtures";
import { chartNames, renderWithApi } from "../../test/renderWithApi";
import { ReportPage } from "./ReportPage";

vi.mock("../../api/endpoints");
vi.mock("../../components/charts/PlotlyFigure", () => import("../../test/fakePlotly"));

function answer(test = TEST) {
  vi.mocked(api.getTest).mockResolvedValue(test);
  vi.mocked(api.getReport).mockResolvedValue({ ...REPORT, first_ts: test.first_ts, last_ts: test.last_ts });
  vi.mocked(api.getSummary).mockResolvedValue(SUMMARY);
  vi.mocked(api.getNotes).mockResolvedValue([]);
  vi.mocked(api.getAnalysis).mockResolvedValue({ status: "ready", findings: [], figures: {} });
  vi.mocked(api.getUploads).mockResolvedValue([]);
  vi.mocked(api.listTests).mockResolvedValue({ count: 0, results: [] });
  vi.mocked(api.getChart).mockResolvedValue(CHART);
  vi.mocked(api.getTables).mockResolvedValue(TABLES);
  vi.mocked(api.getConfig).mockResolvedValue(CONFIG);
  vi.mocked(api.getMonitoring).mockResolvedValue(MONITORING);
}

/** The test and its report answered with `status`: the page asks both at once. */
function refuse(status: number, message: string) {
  answer();
  vi.mocked(api.getTest).mockRejectedValue(new ApiError(status, message));
  vi.mocked(api.getReport).mockRejectedValue(new ApiError(status, message));
}

function panel(): HTMLElement {
  return screen.getByRole("tabpanel");
}

describe("ReportPage", () => {
  beforeEach(() => {
    window.history.replaceState(null, "", "/7");
  });

  it("opens on the Overview with the test's name and its charts", async () => {
    answer();
    renderWithApi(<ReportPage id={7} />);
    expect((await screen.findByRole("heading", { level: 1 })).textContent).toBe("#7 checkout ramp");
    await screen.findByRole("tabpanel");
    expect(screen.getByRole("tab", { selected: true }).textContent).toBe("Overview");
    expect(await chartNames(3)).toEqual(["Response time quantiles and RPS", "HTTP codes", "Net codes"]);
    expect(within(screen.getByRole("group", { name: "Summary of the whole test" })).getByText("120.500")).toBeTruthy();
  });

  it("shows each tab's content when its tab is clicked, and keeps the choice in the link", async () => {
    answer();
    renderWithApi(<ReportPage id={7} />);
    await userEvent.click(await screen.findByRole("tab", { name: "Tables" }));
    const quantiles = await within(panel()).findByRole("region", { name: "Cumulative quantiles" });
    const row = within(quantiles).getByRole("rowheader", { name: "99%" }).closest("tr") as HTMLElement;
    expect(within(row).getAllByRole("cell").map((c) => c.textContent)).toEqual(["120.500", "99.000", "140.750"]);
    expect(within(panel()).queryAllByRole("figure")).toHaveLength(0);
    expect(new URLSearchParams(window.location.hash.slice(1)).get("tab")).toBe("tables");

    await userEvent.click(screen.getByRole("tab", { name: "Config" }));
    expect(await within(panel()).findByRole("heading", { name: "Initial config (configinitial)" })).toBeTruthy();
    expect(within(panel()).queryByRole("region", { name: "Cumulative quantiles" })).toBeNull();

    await userEvent.click(screen.getByRole("tab", { name: "Monitoring" }));
    expect(await within(panel()).findByRole("region", { name: "Host db1" })).toBeTruthy();
    expect(screen.getByRole("tab", { selected: true }).textContent).toBe("Monitoring");
    expect(new URLSearchParams(window.location.hash.slice(1)).get("tab")).toBe("monitoring");
  });

  it("opens the tab a link names", async () => {
    window.history.replaceState(null, "", "/7#tab=distributions");
    answer();
    renderWithApi(<ReportPage id={7} />);
    expect(await chartNames(1)).toEqual(["Response time distribution"]);
    expect(screen.getByRole("tab", { selected: true }).textContent).toBe("Distributions");
  });

  it("says a missing test is not found", async () => {
    refuse(404, "Not found.");
    renderWithApi(<ReportPage id={7} />);
    expect((await screen.findByRole("heading", { level: 1 })).textContent).toBe("Test #7 not found");
    expect(screen.getByRole("link", { name: "Back to the test list" }).getAttribute("href")).toBe("/");
  });

  it("asks a reader of a private test to log in, coming back to it", async () => {
    refuse(403, "Forbidden.");
    renderWithApi(<ReportPage id={7} />);
    expect((await screen.findByRole("heading", { level: 1 })).textContent).toBe("Test #7 is private");
    const login = new URL(screen.getByRole("link", { name: "Log in" }).getAttribute("href") ?? "", "http://tankodrom");
    expect(login.pathname).toBe("/login");
    // The view in the hash comes along, so the reader lands where the link pointed.
    expect(login.searchParams.get("next")).toMatch(/^\/7#tab=test_data&/);
  });

  it("says why a failed test failed", async () => {
    answer({ ...TEST, status: "failed", error: "the phout has no valid line" });
    renderWithApi(<ReportPage id={7} />);
    await waitFor(() =>
      expect(screen.getAllByRole("alert").map((a) => a.textContent)).toContain(
        "This test failed: the phout has no valid line",
      ),
    );
  });

  it("says a test without results has none yet, without tabs", async () => {
    answer({ ...TEST, first_ts: null, last_ts: null });
    renderWithApi(<ReportPage id={7} />);
    expect(await screen.findByText("No results yet. Upload a phout file to this test.")).toBeTruthy();
    expect(screen.queryByRole("tablist")).toBeNull();
  });
});
