/**
 * `/component/<name>`: one figure (q99 of the steady stage, imbalance RPS, error share) across the component's
 * tests over time, with the thresholds the next test is judged against, the tests that broke the trend and the
 * detected change points (/components/<name>/trend). The chosen figure is in the query string.
 */
import { useEffect, useState } from "react";
import { getTrend } from "../../api/endpoints";
import { PlotlyFigure } from "../../components/charts/PlotlyFigure";
import { Empty, ErrorBox, Loading } from "../../components/States";
import { useApi } from "../../hooks/useApi";
import { formatCount, formatMs, formatPercent, formatUnix } from "../../lib/format";

const FIGURES: [string, string][] = [
  ["q99", "q99 of the steady stage, ms"],
  ["imbalance_rps", "imbalance RPS"],
  ["error_share", "error share"],
];

function formatValue(unit: string | undefined, value: number | null | undefined): string {
  if (value === null || value === undefined) return "—";
  if (unit === "ms") return formatMs(value);
  if (unit === "RPS") return formatCount(value);
  return formatPercent(value);
}

export function ComponentPage({ name }: { name: string }) {
  const [figure, setFigure] = useState(() => new URLSearchParams(window.location.search).get("figure") || "q99");
  useEffect(() => {
    document.title = `${name} · component · Tankodrom`;
    window.history.replaceState(null, "", `${window.location.pathname}?figure=${encodeURIComponent(figure)}`);
  }, [name, figure]);
  const trend = useApi(`${name}|${figure}`, (signal) => getTrend(name, [["figure", figure]], signal));
  const data = trend.data;
  const tests = data?.tests ?? [];
  const changes = new Set((data?.change_points ?? []).map((c) => c.test_id));
  const th = data?.thresholds;

  return (
    <main className="page wide component">
      <div className="title-row">
        <h1>Component {name}</h1>
        <a href={`/?component=${encodeURIComponent(name)}`}>its tests in the list</a>
      </div>
      <section className="card row">
        <label>
          Figure{" "}
          <select value={figure} onChange={(e) => setFigure(e.target.value)}>
            {FIGURES.map(([k, label]) => (
              <option key={k} value={k}>
                {label}
              </option>
            ))}
          </select>
        </label>
        {th && th.baseline !== undefined && (
          <span className="thresholds">
            baseline {formatValue(data?.unit, th.baseline)}
            {th.upper !== null && th.upper !== undefined && <> · alarm above {formatValue(data?.unit, th.upper)}</>}
            {th.lower !== null && th.lower !== undefined && <> · alarm below {formatValue(data?.unit, th.lower)}</>}
          </span>
        )}
      </section>
      {trend.error ? (
        trend.error.status === 404 ? (
          <Empty>No tests of component “{name}” to plot yet.</Empty>
        ) : (
          <ErrorBox error={trend.error} what="the trend" />
        )
      ) : !data ? (
        <Loading what="the trend" />
      ) : tests.length === 0 ? (
        <Empty>
          No analysed tests of component “{name}” have this figure yet (the analysis runs when a test is complete).
        </Empty>
      ) : (
        <>
          {data.figure && (
            <section className="card chart-box" aria-label="Trend">
              <PlotlyFigure figure={data.figure} name={`${name} ${figure} trend`} height={420} />
            </section>
          )}
          <section className="card table-card" aria-label="Tests">
            <h2>Tests, oldest first</h2>
            <table className="data">
              <thead>
                <tr>
                  <th scope="col">Test</th>
                  <th scope="col">Started</th>
                  <th scope="col" className="num">
                    {FIGURES.find(([k]) => k === figure)?.[1] ?? figure}
                  </th>
                  <th scope="col">Trend</th>
                </tr>
              </thead>
              <tbody>
                {tests.map((t) => (
                  <tr key={t.id} className={t.broke_trend ? "broke" : ""}>
                    <td>
                      <a href={`/${t.id}`}>#{t.id}</a>
                    </td>
                    <td>{t.ts ? formatUnix(t.ts) : "—"}</td>
                    <td className="num">{formatValue(data.unit, t.value)}</td>
                    <td>
                      {t.broke_trend && <span className="verdict verdict-worse">broke the trend</span>}
                      {changes.has(t.id) && <span className="verdict verdict-same">change point</span>}
                      {t.reasons && t.reasons.length > 0 && <div className="hint">{t.reasons.join("; ")}</div>}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </section>
        </>
      )}
    </main>
  );
}
