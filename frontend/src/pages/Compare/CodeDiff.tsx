import { Empty } from "../../components/States";
import { TableCard } from "../../components/TableCard";
import { TestColumns } from "../../components/TestColumns";
import { codeRows, type CompareCodes } from "../../lib/compareTable";
import { formatCount } from "../../lib/format";
import { Verdict } from "./Verdict";

/** Each test's share of a code with its count beside it; the share's difference coloured by its verdict (more of
 * a failing code is worse, more of a successful one better), never by the sign alone. */
export function CodeDiff({ title, answer, kind }: { title: string; answer: CompareCodes; kind: "http" | "net" }) {
  const rows = codeRows(answer, kind);
  const tests = answer.tests;
  return (
    <TableCard label={title} table={title} instead={rows.length === 0 && <Empty>No codes.</Empty>}>
      <TestColumns first={<th scope="col">Code</th>} tests={tests} />
      <tbody>
        {rows.map((r) => (
          <tr key={r.code} data-code={r.code}>
            <th scope="row">
              {r.code}
              {r.name ? <span className="hint"> {r.name}</span> : null}
            </th>
            {r.cells.map((c, i) => (
              <td className={`num${c.verdict && c.verdict !== "same" ? ` cell-${c.verdict}` : ""}`} key={tests[i]}>
                <span className="value">{c.share}</span> <span className="hint">({formatCount(c.count)})</span>
                {c.diff && (
                  <div className="hint">
                    {c.diff} <Verdict verdict={c.verdict} />
                  </div>
                )}
              </td>
            ))}
          </tr>
        ))}
      </tbody>
    </TableCard>
  );
}
