// @vitest-environment jsdom
/** The report's tab switcher: a click or the arrow keys choose a section; exactly one tab is selected. */
import { render, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { useState } from "react";
import { describe, expect, it } from "vitest";
import type { Tab } from "../../lib/viewState";
import { TabList } from "./TabList";
import "../../test/renderWithApi"; // unmounts each test's tree

function Switcher({ start = "test_data" }: { start?: Tab }) {
  const [tab, setTab] = useState<Tab>(start);
  return <TabList tab={tab} onTab={setTab} />;
}

function selected(): string[] {
  return screen
    .getAllByRole("tab")
    .filter((t) => t.getAttribute("aria-selected") === "true")
    .map((t) => t.textContent ?? "");
}

describe("TabList", () => {
  it("names the six sections in Overload's order, the chosen one selected and focusable", () => {
    render(<Switcher start="tables" />);
    const tabs = screen.getAllByRole("tab");
    expect(tabs.map((t) => t.textContent)).toEqual([
      "Overview",
      "Extended analysis",
      "Distributions",
      "Tables",
      "Monitoring",
      "Config",
    ]);
    expect(selected()).toEqual(["Tables"]);
    expect(tabs.map((t) => t.tabIndex)).toEqual([-1, -1, -1, 0, -1, -1]);
    expect(screen.getByRole("tablist", { name: "Report sections" })).toBeTruthy();
  });

  it("selects the tab clicked", async () => {
    render(<Switcher />);
    expect(selected()).toEqual(["Overview"]);
    await userEvent.click(screen.getByRole("tab", { name: "Monitoring" }));
    expect(selected()).toEqual(["Monitoring"]);
    await userEvent.click(screen.getByRole("tab", { name: "Distributions" }));
    expect(selected()).toEqual(["Distributions"]);
  });

  it("moves with the arrow keys, wrapping around, and jumps with Home and End", async () => {
    render(<Switcher />);
    await userEvent.click(screen.getByRole("tab", { name: "Overview" }));
    await userEvent.keyboard("{ArrowLeft}");
    expect(selected()).toEqual(["Config"]);
    expect(document.activeElement?.textContent).toBe("Config");
    await userEvent.keyboard("{ArrowRight}{ArrowRight}");
    expect(selected()).toEqual(["Extended analysis"]);
    expect(document.activeElement?.textContent).toBe("Extended analysis");
    await userEvent.keyboard("{End}");
    expect(selected()).toEqual(["Config"]);
    await userEvent.keyboard("{Home}");
    expect(selected()).toEqual(["Overview"]);
  });
});
