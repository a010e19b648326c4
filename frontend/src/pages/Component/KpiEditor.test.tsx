// @vitest-environment jsdom
/** The KPI editor as a maintainer uses it: rows edited in place, saved in one request, refusals said in the form. */
import { render, screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it, vi } from "vitest";
import { ApiError } from "../../api/client";
import { saveKpis } from "../../api/regressions";
import type { KpiSetting } from "../../api/types";
import "../../test/renderWithApi"; // unmounts each test's tree
import { KpiEditor } from "./KpiEditor";

vi.mock("../../api/regressions");

const save = vi.mocked(saveKpis);
const KPIS: KpiSetting[] = [
  { kpi: "q99", threshold: { kind: "absolute", value: 250 } },
  { kpi: "error_share", threshold: null },
];

describe("KpiEditor", () => {
  it("lists each KPI with its threshold", () => {
    render(<KpiEditor component="api" project="team" kpis={KPIS} onSaved={() => undefined} />);
    expect(screen.getAllByRole("rowheader").map((h) => h.textContent)).toEqual(["99% quantile", "Error share"]);
    expect((screen.getByRole("textbox", { name: "Threshold value of q99" }) as HTMLInputElement).value).toBe("250");
    expect(screen.queryByRole("textbox", { name: "Threshold value of error_share" })).toBeNull();
  });

  it("saves the edited rows and says so", async () => {
    save.mockResolvedValue({ kpis: [], component: "api", stored: true });
    const onSaved = vi.fn();
    render(<KpiEditor component="api" project="team" kpis={KPIS} onSaved={onSaved} />);
    const value = screen.getByRole("textbox", { name: "Threshold value of q99" });
    await userEvent.clear(value);
    await userEvent.type(value, "300");
    await userEvent.click(screen.getByRole("button", { name: "Remove error_share" }));
    await userEvent.click(screen.getByRole("button", { name: "Save KPIs" }));
    expect(save).toHaveBeenCalledWith("api", "team", [{ kpi: "q99", threshold: { kind: "absolute", value: 300 } }]);
    expect((await screen.findByRole("status")).textContent).toBe("Saved.");
    expect(onSaved).toHaveBeenCalledOnce();
  });

  it("refuses a threshold that is not a number, without asking the server", async () => {
    render(<KpiEditor component="api" project="team" kpis={KPIS} onSaved={() => undefined} />);
    await userEvent.clear(screen.getByRole("textbox", { name: "Threshold value of q99" }));
    await userEvent.click(screen.getByRole("button", { name: "Save KPIs" }));
    expect(screen.getByRole("alert").textContent).toBe("row 1 (q99): the threshold needs a number ≥ 0");
    expect(save).not.toHaveBeenCalled();
  });

  it("says why the server refused, and the button comes back", async () => {
    save.mockRejectedValue(new ApiError(403, "This needs the maintainer role in project 'team'; you are viewer."));
    const onSaved = vi.fn();
    render(<KpiEditor component="api" project="team" kpis={KPIS} onSaved={onSaved} />);
    const button = screen.getByRole("button", { name: "Save KPIs" }) as HTMLButtonElement;
    await userEvent.click(button);
    const form = screen.getByRole("form", { name: "KPIs and thresholds" });
    expect((await within(form).findByRole("alert")).textContent).toBe(
      "This needs the maintainer role in project 'team'; you are viewer.",
    );
    expect(button.disabled).toBe(false);
    expect(onSaved).not.toHaveBeenCalled();
    expect(screen.queryByRole("status")).toBeNull();
  });
});
