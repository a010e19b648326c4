/** The tabs made of per-second charts: Overview, Extended analysis and Distributions (product.md). */
import type { Params } from "../../../api/client";
import type { ChartMark } from "../../../components/charts/PlotlyFigure";
import { ChartBox } from "../ChartBox";

interface ChartTabProps {
  testId: number;
  params: Params;
  refresh: number;
  onXRange: (start: unknown, end: unknown) => void;
  marks?: ChartMark[];
  onPickSecond?: (ts: number) => void;
}

export function OverviewTab({ testId, params, refresh, onXRange, marks, onPickSecond }: ChartTabProps) {
  return (
    <div className="charts">
      <ChartBox
        testId={testId}
        name="quantiles"
        title="Response time quantiles and RPS"
        params={params}
        refresh={refresh}
        height={460}
        onXRange={onXRange}
        marks={marks}
        onPickSecond={onPickSecond}
      />
      <ChartBox testId={testId} name="http_codes" title="HTTP codes" params={params} refresh={refresh} onXRange={onXRange}
        marks={marks} onPickSecond={onPickSecond} />
      <ChartBox testId={testId} name="net_codes" title="Net codes" params={params} refresh={refresh} onXRange={onXRange}
        marks={marks} onPickSecond={onPickSecond} />
    </div>
  );
}

export function ExtendedTab({ testId, params, refresh, onXRange, marks, onPickSecond }: ChartTabProps) {
  return (
    <div className="charts">
      <ChartBox
        testId={testId}
        name="times"
        title="Mean connect, send, latency and receive times"
        params={params}
        refresh={refresh}
        onXRange={onXRange}
        marks={marks}
        onPickSecond={onPickSecond}
      />
      <ChartBox testId={testId} name="sizes" title="Bytes in and out" params={params} refresh={refresh} onXRange={onXRange}
        marks={marks} onPickSecond={onPickSecond} />
      <ChartBox testId={testId} name="quantiles_by_load" title="Quantiles by load" params={params} refresh={refresh} />
      <ChartBox testId={testId} name="instances_rps" title="Instances and RPS" params={params} refresh={refresh} />
    </div>
  );
}

export function DistributionsTab({
  testId,
  params,
  refresh,
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
        Logarithmic count axis
      </label>
      <ChartBox
        testId={testId}
        name="distribution"
        title={cases.length ? `Response time distribution: ${cases.join(", ")}` : "Response time distribution"}
        params={withLog}
        refresh={refresh}
        height={380}
      />
      {perCase.map((c) => (
        <ChartBox
          key={c}
          testId={testId}
          name="distribution"
          title={`Response time distribution: ${c}`}
          params={[...base, ["case", c]]}
          refresh={refresh}
        />
      ))}
    </div>
  );
}
