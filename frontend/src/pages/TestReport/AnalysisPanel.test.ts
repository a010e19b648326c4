import { describe, expect, it } from "vitest";
import { findingRows } from "./AnalysisPanel";

describe("findingRows", () => {
  it("shows the facts in words when the engine gives them", () => {
    const rows = findingRows({
      kind: "imbalance",
      severity: "critical",
      title: "Imbalance at 186 RPS",
      text: "",
      evidence: { planned_rps: 186, recommended_instances: null },
      facts: [{ label: "Imbalance", value: "186 RPS at 12:00:17 UTC" }],
    });
    expect(rows).toEqual([{ label: "Imbalance", value: "186 RPS at 12:00:17 UTC" }]);
  });

  it("never prints null for an unknown figure of an older finding", () => {
    const rows = findingRows({
      kind: "generator_limited",
      severity: "critical",
      title: "",
      text: "",
      evidence: { planned_rps: 300, recommended_instances: null },
    });
    expect(rows.map((r) => r.value)).not.toContain("null");
    expect(rows.map((r) => r.label)).toEqual(["planned rps"]);
  });
});
