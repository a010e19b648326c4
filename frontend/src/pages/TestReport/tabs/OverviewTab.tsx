/** Overview: the response time quantiles with RPS, and the HTTP and net codes, second by second. */
import type { ChartTabProps } from "./chartTab";
import { TimeChart } from "./TimeChart";

export function OverviewTab(tab: ChartTabProps) {
  return (
    <div className="charts">
      <TimeChart tab={tab} name="quantiles" title="Response time quantiles and RPS" height={460} />
      <TimeChart tab={tab} name="http_codes" title="HTTP codes" />
      <TimeChart tab={tab} name="net_codes" title="Net codes" />
    </div>
  );
}
