/** Distributions: the response time distribution of the selection, then of each chosen case. */
import type { Params } from "../../../api/client";
import { ChartBox } from "../ChartBox";
import type { ChartTabProps } from "./chartTab";

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
