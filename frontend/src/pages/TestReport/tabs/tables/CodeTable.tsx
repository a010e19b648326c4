/** The HTTP or net codes of the window: each code with its meaning, count and share. */
import type { TablesAnswer } from "../../../../api/types";
import { ShareTable } from "./ShareTable";

export function CodeTable({
  title,
  rows,
  kind,
  testId,
}: {
  title: string;
  /** The API's rows: each code with its class and name (analytics/definitions.py), count and share. */
  rows: TablesAnswer["http_codes"];
  kind: string;
  testId: number;
}) {
  return (
    <ShareTable
      title={title}
      heading={title}
      kind={kind}
      testId={testId}
      columns={["Code", "Meaning"]}
      csvHeader={["code", "class", "meaning"]}
      empty="No responses in this window."
      rows={rows.map((r) => ({
        key: r.code,
        label: r.code,
        cells: [
          <td className="meaning" key="meaning">
            {r.name}
          </td>,
        ],
        attrs: { "data-code": r.code, "data-class": r.class },
        count: r.count,
        share: r.share,
        csv: [r.code, r.class, r.name],
      }))}
    />
  );
}
