/** Monitoring: per host, the metric groups' charts on the test's time axis and window (/monitoring). */
import type { Params } from "../../../api/client";
import { getMonitoring } from "../../../api/endpoints";
import { PlotlyFigure, type ChartMark } from "../../../components/charts/PlotlyFigure";
import { Empty, ErrorBox, Loading } from "../../../components/States";
import { testKey, useApi } from "../../../hooks/useApi";
import { collectFigures } from "../../../lib/figures";

export function MonitoringTab({
  testId,
  params,
  hosts,
  machines,
  onMachines,
  onXRange,
  marks,
}: {
  testId: number;
  params: Params;
  hosts: string[];
  machines: string[];
  onMachines: (machines: string[]) => void;
  onXRange: (start: unknown, end: unknown) => void;
  marks?: ChartMark[];
}) {
  const answer = useApi(testKey(testId, "monitoring", params), (signal) => getMonitoring(testId, params, signal));
  if (answer.error) {
    if (answer.error.status === 404) return <Empty>No monitoring data was uploaded with this test.</Empty>;
    return <ErrorBox error={answer.error} what="monitoring" />;
  }
  if (!answer.data) return <Loading what="monitoring" />;
  const figures = collectFigures(answer.data);
  const allHosts = [...new Set([...hosts, ...figures.map((f) => f.path[0] ?? "")].filter((h) => h !== ""))];
  const shown = figures.filter((f) => machines.length === 0 || machines.includes(f.path[0] ?? ""));
  if (figures.length === 0) return <Empty>No monitoring data was uploaded with this test.</Empty>;
  const byHost = new Map<string, typeof shown>();
  for (const f of shown) {
    const host = f.path[0] ?? "";
    byHost.set(host, [...(byHost.get(host) ?? []), f]);
  }
  return (
    <div className="monitoring">
      {allHosts.length > 1 && (
        <fieldset className="hosts card">
          <legend>Hosts</legend>
          {allHosts.map((h) => (
            <label className="check" key={h}>
              <input
                type="checkbox"
                checked={machines.length === 0 || machines.includes(h)}
                onChange={(e) => {
                  const current = machines.length === 0 ? allHosts : machines;
                  const next = e.target.checked ? [...current, h] : current.filter((x) => x !== h);
                  onMachines(next.length === allHosts.length ? [] : next);
                }}
              />
              {h}
            </label>
          ))}
        </fieldset>
      )}
      {[...byHost.entries()].map(([host, list]) => (
        <section key={host} aria-label={`Host ${host}`}>
          <h2 className="host">{host || "Monitoring"}</h2>
          <div className="charts grid">
            {list.map((f) => {
              const title = f.path.slice(1).join(" · ") || host;
              return (
                <div className="card chart-box" key={f.path.join("/")}>
                  <h3>{title}</h3>
                  <PlotlyFigure figure={f.figure} name={`${host} ${title}`} height={340} onXRange={onXRange} marks={marks} />
                </div>
              );
            })}
          </div>
        </section>
      ))}
    </div>
  );
}
