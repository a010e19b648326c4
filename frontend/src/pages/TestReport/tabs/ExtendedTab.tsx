/** Extended analysis: the phases of a response, bytes in and out, quantiles by load, instances and RPS. */
import { ChartBox } from "../ChartBox";
import type { ChartTabProps } from "./chartTab";
import { TimeChart } from "./TimeChart";

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
