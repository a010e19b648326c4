/** Every test of the component, newest first, with its KPI values (those past a threshold marked) and a link comparing it with the baseline. */
import type { Dashboard } from "../../api/types";
import { TableCard } from "../../components/TableCard";
import { formatUnix } from "../../lib/format";
import { formatKpi } from "./kpis";

export function TestsTable({ data }: { data: Dashboard }) {
  const baseline = data.baseline?.id;
  const byKpi = new Map(data.kpis.map((k) => [k.kpi, new Map(k.points.map((p) => [p.test_id, p]))]));
  return (
    <TableCard label="Tests" head={<h2>Tests, newest first</h2>} table="component-tests" className="kpi-table">
      <thead>
        <tr>
          <th scope="col">Test</th>
          <th scope="col">Started</th>
          {data.kpis.map((k) => (
            <th scope="col" className="num" key={k.kpi}>
              {k.title}
            </th>
          ))}
          <th scope="col">Compare</th>
        </tr>
      </thead>
      <tbody>
        {[...data.tests].reverse().map((t) => {
          const broke = data.kpis.some((k) => byKpi.get(k.kpi)?.get(t.id)?.past_threshold);
          return (
            <tr key={t.id} className={broke ? "broke" : ""} data-test={t.id}>
              <td>
                <a href={t.url}>#{t.id}</a> {t.name}
                {t.version && <span className="hint"> {t.version}</span>}
                {t.id === baseline && <span className="verdict verdict-better"> baseline</span>}
              </td>
              <td>{formatUnix(t.ts)}</td>
              {data.kpis.map((k) => {
                const p = byKpi.get(k.kpi)?.get(t.id);
                return (
                  <td className={`num${p?.past_threshold ? " past" : ""}`} key={k.kpi}>
                    {formatKpi(k.unit, p?.value)}
                  </td>
                );
              })}
              <td>
                {baseline && baseline !== t.id ? (
                  <a href={`/compare/${baseline}/${t.id}`}>vs baseline</a>
                ) : (
                  <span className="hint">—</span>
                )}
              </td>
            </tr>
          );
        })}
      </tbody>
    </TableCard>
  );
}
