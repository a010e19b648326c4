/** KPI names and values as the component page shows them (pure, unit-tested). */
import type { KpiSeriesJson } from "../../api/types";
import { formatCount, formatMs, formatPercent } from "../../lib/format";

export const KPI_CHOICES = ["q50", "q75", "q90", "q95", "q98", "q99", "q99.9", "max_rps", "imbalance_rps", "error_share"];

const NAMED: Record<string, string> = {
  max_rps: "Max RPS",
  imbalance_rps: "Imbalance RPS",
  error_share: "Error share",
};

export function kpiTitle(kpi: string): string {
  if (NAMED[kpi]) return NAMED[kpi];
  const level = /^q(\d+(?:\.\d+)?)$/.exec(kpi)?.[1];
  return level ? `${level}% quantile` : kpi;
}

/** A KPI's value in its unit: ms with three decimals, RPS as a count, a share in percent. */
export function formatKpi(unit: string, value: number | null | undefined): string {
  if (value === null || value === undefined) return "—";
  if (unit === "ms") return `${formatMs(value)} ms`;
  if (unit === "RPS") return `${formatCount(value)} RPS`;
  return formatPercent(value);
}

/** "fails above 107.9 ms (20 % over the baseline's 89.9 ms)", or why there is no limit. */
export function thresholdText(s: KpiSeriesJson): string {
  if (!s.threshold) return "no threshold";
  const side = s.direction === "higher_is_worse" ? "above" : "below";
  if (s.limit === null) return `${s.threshold.value} % from the baseline: the component has no baseline value yet`;
  const limit = formatKpi(s.unit, s.limit);
  if (s.threshold.kind === "absolute") return `fails ${side} ${limit}`;
  const dir = s.direction === "higher_is_worse" ? "over" : "under";
  return `fails ${side} ${limit} (${s.threshold.value} % ${dir} the baseline's ${formatKpi(s.unit, s.baseline_value)})`;
}
