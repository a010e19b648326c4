/** The tabs made of per-second charts: Overview, Extended analysis and Distributions (product.md). */
import type { Params } from "../../../api/client";
import type { ChartMark } from "../../../components/charts/PlotlyFigure";
import type { ChartName } from "../../../api/endpoints";
import { ChartBox } from "../ChartBox";

interface ChartTabProps {
  testId: number;
  params: Params;
  onXRange: (start: unknown, end: unknown) => void;
  marks?: ChartMark[];
  onPickSecond?: (ts: number) => void;
}

/** A time chart of the test: it follows the window, marks the findings and notes, and zooms the window. */
function TimeChart({ tab, name, title, height }: { tab: ChartTabProps; name: ChartName; title: string; height?: number }) {
  return <ChartBox {...tab} name={name} title={title} height={height} />;
}

export function OverviewTab(tab: ChartTabProps) {
  return (
    <div className="charts">
      <TimeChart tab={tab} name="quantiles" title="Response time quantiles and RPS" height={460} />
      <TimeChart tab={tab} name="http_codes" title="HTTP codes" />
      <TimeChart tab={tab} name="net_codes" title="Net codes" />
    </div>
  );
}

export function ExtendedTab(tab: ChartTabProps) {
  const { testId, params } = tab;
  return (
    <div className="charts">
      <TimeChart tab={tab} name="times" title="Mean connect, send, latency and receive times" />
      <TimeChart tab={tab} name="sizes" title="Bytes in and out" />
      <ChartBox testId={testId} name="quantiles_by_load" title="Quantiles by load" params={params} />
      <ChartBox testId={testId} name="instances_rps" title="Instances and RPS" params={params} />
    </div>
  );
}

export function DistributionsTab({
  testId,
  params,
  cases,
  log,
  onLog,
}: Omit<ChartTabProps, "onXRange" | "marks" | "onPickSecond"> & { cases: string[]; log: boolean; onLog: (log: boolean) => void }) {
  // One chart for the selection, then one per selected case, as Overload showed them per tag.
  // The backend draws the log axis (`log=true`), so the figure layer stays the only one that builds figures.
  const withLog: Params = log ? [...params, ["log", "true"]] : params;
  const base = withLog.filter(([k]) => k !== "case");
  const perCase = cases.length > 1 ? cases : [];
  return (
    <div className="charts">
      <label className="check toolbar">
        <input type="checkbox" checked={log} onChange={(e) => onLog(e.target.checked)} />
        Logarithmic scale
      </label>
      <ChartBox
        testId={testId}
        name="distribution"
        title={cases.length ? `Response time distribution: ${cases.join(", ")}` : "Response time distribution"}
        params={withLog}
        height={380}
      />
      {perCase.map((c) => (
        <ChartBox
          key={c}
          testId={testId}
          name="distribution"
          title={`Response time distribution: ${c}`}
          params={[...base, ["case", c]]}
        />
      ))}
    </div>
  );
}
