import { describe, expect, it } from "vitest";
import type { Finding } from "../../api/types";
import { findingRows } from "./AnalysisPanel";

/** A critical finding whose evidence has a figure the engine could not give (null). */
const finding = (kind: string, more: Partial<Finding> = {}): Finding => ({
  kind,
  severity: "critical",
  title: "",
  text: "",
  evidence: { planned_rps: 186, recommended_instances: null },
  annotations: [],
  ...more,
});

describe("findingRows", () => {
  it("shows the facts in words when the engine gives them", () => {
    const rows = findingRows(finding("imbalance", { facts: [{ label: "Imbalance", value: "186 RPS at 12:00:17 UTC" }] }));
    expect(rows).toEqual([{ label: "Imbalance", value: "186 RPS at 12:00:17 UTC" }]);
  });

  it("never prints null for an unknown figure of an older finding", () => {
    const rows = findingRows(finding("generator_limited"));
    expect(rows.map((r) => r.value)).not.toContain("null");
    expect(rows.map((r) => r.label)).toEqual(["planned rps"]);
  });
});
