import { CsvButton } from "../../../../components/CsvButton";
import { Empty } from "../../../../components/States";
import { TableCard } from "../../../../components/TableCard";
import { formatCount, formatPercent } from "../../../../lib/format";
import { TableHead } from "./TableHead";

export interface ShareRow {
  key: number;
  /** The row's heading cell and any text cells before the count. */
  label: React.ReactNode;
  cells?: React.ReactNode[];
  attrs: Record<string, string | number>;
  count: number;
  /** Of all requests, 0..1, as the API sends it. */
  share: number;
  csv: (string | number)[];
}

/** A table of counts and their shares of the window's responses: the codes, the response time intervals. */
export function ShareTable({
  title,
  heading,
  kind,
  testId,
  columns,
  csvHeader,
  rows,
  empty,
}: {
  title: string;
  heading: string;
  kind: string;
  testId: number;
  /** The columns before Count and %. */
  columns: string[];
  csvHeader: string[];
  rows: ShareRow[];
  empty: string;
}) {
  return (
    <TableCard
      label={title}
      table={kind}
      head={
        <TableHead
          title={heading}
          csv={
            <CsvButton
              label={title}
              file={`test-${testId}-${kind}`}
              header={[...csvHeader, "count", "share"]}
              rows={rows.map((r) => [...r.csv, r.count, r.share])}
            />
          }
        />
      }
      instead={rows.length === 0 && <Empty>{empty}</Empty>}
    >
      <thead>
        <tr>
          {columns.map((c) => (
            <th scope="col" key={c}>
              {c}
            </th>
          ))}
          <th scope="col" className="num">
            Count
          </th>
          <th scope="col" className="num">
            %
          </th>
        </tr>
      </thead>
      <tbody>
        {rows.map((r) => (
          <tr key={r.key} {...r.attrs}>
            <th scope="row">{r.label}</th>
            {r.cells}
            <td className="num" data-count={r.count}>
              {formatCount(r.count)}
            </td>
            <td className="num">{formatPercent(r.share)}</td>
          </tr>
        ))}
      </tbody>
    </TableCard>
  );
}
