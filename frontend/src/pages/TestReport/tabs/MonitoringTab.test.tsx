// @vitest-environment jsdom
/** The Monitoring tab: per host, a chart per metric group; hosts picked by checkboxes; or why there is nothing. */
import { screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it, vi } from "vitest";
import { ApiError } from "../../../api/client";
import { getMonitoring } from "../../../api/endpoints";
import { MONITORING } from "../../../test/fixtures";
import { renderWithApi } from "../../../test/renderWithApi";
import { MonitoringTab } from "./MonitoringTab";

vi.mock("../../../api/endpoints");
vi.mock("../../../components/charts/PlotlyFigure", () => import("../../../test/fakePlotly"));

const monitoring = vi.mocked(getMonitoring);
const noop = () => undefined;

function renderTab(machines: string[] = [], onMachines = vi.fn()) {
  renderWithApi(
    <MonitoringTab
      testId={7}
      params={[["compress_ratio", "auto"]]}
      hosts={["db1", "app1"]}
      machines={machines}
      onMachines={onMachines}
      onXRange={noop}
    />,
  );
  return onMachines;
}

describe("MonitoringTab", () => {
  it("draws each host's metric groups under the host's name", async () => {
    monitoring.mockResolvedValue(MONITORING);
    renderTab();
    const db = await screen.findByRole("region", { name: "Host db1" });
    expect(within(db).getByRole("heading", { level: 2 }).textContent).toBe("db1");
    expect(within(db).getAllByRole("heading", { level: 3 }).map((h) => h.textContent)).toEqual(["cpu", "memory"]);
    expect(within(db).getByRole("figure", { name: "db1 cpu" }).dataset.traces).toBe("2");
    const app = screen.getByRole("region", { name: "Host app1" });
    expect(within(app).getAllByRole("figure").map((f) => f.getAttribute("aria-label"))).toEqual(["app1 cpu"]);
    expect(monitoring).toHaveBeenCalledWith(7, [["compress_ratio", "auto"]], expect.anything());
  });

  it("shows only the chosen hosts, and unticking one asks for the others", async () => {
    monitoring.mockResolvedValue(MONITORING);
    const onMachines = renderTab(["db1"]);
    await screen.findByRole("region", { name: "Host db1" });
    expect(screen.queryByRole("region", { name: "Host app1" })).toBeNull();
    const hosts = screen.getByRole("group", { name: "Hosts" });
    const db = within(hosts).getByRole("checkbox", { name: "db1" }) as HTMLInputElement;
    const app = within(hosts).getByRole("checkbox", { name: "app1" }) as HTMLInputElement;
    expect([db.checked, app.checked]).toEqual([true, false]);
    await userEvent.click(app);
    // Both ticked is every host: the hash then names none.
    expect(onMachines).toHaveBeenLastCalledWith([]);
  });

  it("unticking a host of all shown keeps the others", async () => {
    monitoring.mockResolvedValue(MONITORING);
    const onMachines = renderTab();
    await screen.findByRole("region", { name: "Host db1" });
    await userEvent.click(screen.getByRole("checkbox", { name: "app1" }));
    expect(onMachines).toHaveBeenLastCalledWith(["db1"]);
  });

  it("says no monitoring was uploaded when the API has none (404)", async () => {
    monitoring.mockRejectedValue(new ApiError(404, "Not found."));
    renderTab();
    expect(await screen.findByText("No monitoring data was uploaded with this test.")).toBeTruthy();
  });

  it("says no monitoring was uploaded when the answer has no hosts", async () => {
    monitoring.mockResolvedValue({ compress_ratio: 1, hosts: [] });
    renderTab();
    expect(await screen.findByText("No monitoring data was uploaded with this test.")).toBeTruthy();
    expect(screen.queryByRole("figure")).toBeNull();
  });

  it("says what went wrong on any other error", async () => {
    monitoring.mockRejectedValue(new ApiError(502, "Bad gateway"));
    renderTab();
    expect((await screen.findByRole("alert")).textContent).toBe("Could not load monitoring (502): Bad gateway");
  });
});
