/** The window's responses counted by response time interval, ms. */
import type { TablesAnswer } from "../../../../api/types";
import { formatCount } from "../../../../lib/format";
import { ShareTable } from "./ShareTable";

export function IntervalTable({ testId, rows }: { testId: number; rows: NonNullable<TablesAnswer["intervals"]> }) {
  return (
    <ShareTable
      title="Response time intervals"
      heading="Response time intervals, ms"
      kind="intervals"
      testId={testId}
      columns={["Interval, ms"]}
      csvHeader={["from_ms", "to_ms"]}
      empty="No response times in this window."
      rows={rows.map((r) => ({
        key: r.from_ms,
        label: `${formatCount(r.from_ms)} – ${formatCount(r.to_ms)}`,
        attrs: { "data-interval": `${r.from_ms}-${r.to_ms}` },
        count: r.count,
        share: r.share,
        csv: [r.from_ms, r.to_ms],
      }))}
    />
  );
}
