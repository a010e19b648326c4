/** What every tab made of per-second charts gets from the report (product.md: Overview, Extended analysis, Distributions). */
import type { Params } from "../../../api/client";
import type { ChartMark } from "../../../components/charts/PlotlyFigure";

export interface ChartTabProps {
  testId: number;
  params: Params;
  onXRange: (start: unknown, end: unknown) => void;
  marks?: ChartMark[];
  onPickSecond?: (ts: number) => void;
}
