/**
 * `/component/<name>`: one figure (q99, imbalance RPS, error share...) across the component's tests over time,
 * with the tests that broke the trend and the detected change points (/components/<name>/trend).
 */
import { useEffect, useState } from "react";
import { getTrend } from "../../api/endpoints";
import { PlotlyFigure } from "../../components/charts/PlotlyFigure";
import { Empty, ErrorBox, Loading } from "../../components/States";
import { useApi } from "../../hooks/useApi";
import { formatMs, formatUnix } from "../../lib/format";

const DEFAULT_FIGURES: [string, string][] = [
  ["q99", "99% response time, ms"],
  ["q95", "95% response time, ms"],
  ["q50", "median response time, ms"],
  ["imbalance_rps", "imbalance RPS"],
  ["error_share", "error share"],
  ["max_rps", "max RPS"],
];

export function ComponentPage({ name }: { name: string }) {
  const [figure, setFigure] = useState(() => new URLSearchParams(window.location.search).get("figure") || "q99");
  useEffect(() => {
    document.title = `${name} · component · Tankodrom`;
    window.history.replaceState(null, "", `${window.location.pathname}?figure=${encodeURIComponent(figure)}`);
  }, [name, figure]);
  const trend = useApi(`${name}|${figure}`, (signal) => getTrend(name, [["figure", figure]], signal));
  const choices: [string, string][] = trend.data?.figures?.length
    ? trend.data.figures.map((f) => [f, DEFAULT_FIGURES.find(([k]) => k === f)?.[1] ?? f])
    : DEFAULT_FIGURES;
  const tests = trend.data?.tests ?? [];

  return (
    <main className="page wide component">
      <div className="title-row">
        <h1>Component {name}</h1>
        <a href={`/?component=${encodeURIComponent(name)}`}>its tests in the list</a>
      </div>
      <section className="card">
        <label>
          Figure{" "}
          <select value={figure} onChange={(e) => setFigure(e.target.value)}>
            {choices.map(([k, label]) => (
              <option key={k} value={k}>
                {label}
              </option>
            ))}
          </select>
        </label>
      </section>
      {trend.error ? (
        trend.error.status === 404 ? (
          <Empty>No tests of component “{name}” to plot yet.</Empty>
        ) : (
          <ErrorBox error={trend.error} what="the trend" />
        )
      ) : !trend.data ? (
        <Loading what="the trend" />
      ) : (
        <>
          {trend.data.figure ? (
            <section className="card chart-box" aria-label="Trend">
              <PlotlyFigure figure={trend.data.figure} name={`${name} ${figure} trend`} height={420} />
            </section>
          ) : (
            <Empty>The trend has no figure.</Empty>
          )}
          {tests.length > 0 && (
            <section className="card table-card" aria-label="Tests">
              <h2>Tests</h2>
              <table className="data">
                <thead>
                  <tr>
                    <th scope="col">Test</th>
                    <th scope="col">When</th>
                    <th scope="col" className="num">
                      {figure}
                    </th>
                    <th scope="col">Trend</th>
                  </tr>
                </thead>
                <tbody>
                  {tests.map((t) => (
                    <tr key={t.id} className={t.broke_trend ? "broke" : ""}>
                      <td>
                        <a href={`/${t.id}`}>#{t.id}</a> {t.name ?? ""}
                      </td>
                      <td>{t.ts ? formatUnix(t.ts) : "—"}</td>
                      <td className="num">{formatMs(t.value)}</td>
                      <td>{t.broke_trend ? <span className="verdict verdict-worse">broke the trend</span> : ""}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </section>
          )}
        </>
      )}
    </main>
  );
}
