// @vitest-environment jsdom
/** The Config tab: the tank's configs as they were sent, one card each, or why there are none. */
import { screen, within } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";
import { ApiError } from "../../../api/client";
import { getConfig } from "../../../api/endpoints";
import { CONFIG } from "../../../test/fixtures";
import { renderWithApi } from "../../../test/renderWithApi";
import { ConfigTab } from "./ConfigTab";

vi.mock("../../../api/endpoints");

const config = vi.mocked(getConfig);

describe("ConfigTab", () => {
  it("shows each config the tank sent under its name, and leaves out the empty ones", async () => {
    config.mockResolvedValue(CONFIG);
    renderWithApi(<ConfigTab testId={7} />);
    const initial = await screen.findByRole("region", { name: "Initial config (configinitial)" });
    expect(within(initial).getByRole("heading").textContent).toBe("Initial config (configinitial)");
    expect(initial.querySelector("pre")?.textContent).toBe("phantom:\n  address: shop:443\n");
    const monitoring = screen.getByRole("region", { name: "Monitoring config" });
    expect(monitoring.querySelector("pre")?.textContent).toBe("<Monitoring/>");
    expect(screen.queryByRole("region", { name: "Effective config (configinfo)" })).toBeNull();
    expect(screen.getAllByRole("heading").map((h) => h.textContent)).toEqual([
      "Initial config (configinitial)",
      "Monitoring config",
    ]);
    expect(config).toHaveBeenCalledWith(7, expect.anything());
  });

  it("says the tank sent no configs", async () => {
    config.mockResolvedValue({ configinitial: "", configinfo: " \n", monitoringconfig: "" });
    renderWithApi(<ConfigTab testId={7} />);
    expect(await screen.findByText("The tank sent no configs with this test.")).toBeTruthy();
    expect(screen.queryByRole("heading")).toBeNull();
  });

  it("says why the configs cannot be shown", async () => {
    config.mockRejectedValue(new ApiError(403, "You may not read this test."));
    renderWithApi(<ConfigTab testId={7} />);
    expect((await screen.findByRole("alert")).textContent).toBe("Could not load the configs (403): You may not read this test.");
  });
});
