/** One KPI across the component's tests: its chart with the threshold and change points; a click on a point opens that test. */
import type { KpiSeriesJson } from "../../api/types";
import { PlotlyFigure } from "../../components/charts/PlotlyFigure";
import { thresholdText } from "./kpis";

function openTest(customdata: unknown): void {
  const id = Number(customdata);
  if (Number.isInteger(id) && id > 0) window.location.href = `/${id}`;
}

export function KpiCard({ series }: { series: KpiSeriesJson }) {
  const past = series.points.filter((p) => p.past_threshold).length;
  return (
    <section className="card chart-box kpi-card" aria-label={series.title} data-kpi={series.kpi}>
      <h2>
        {series.title}{" "}
        {past > 0 && (
          <span className="verdict verdict-worse">
            {past} past the threshold
          </span>
        )}
      </h2>
      <p className="hint">
        {thresholdText(series)}
        {series.change_points.length > 0 &&
          ` · the level changed at ${series.change_points.map((id) => `#${id}`).join(", ")}`}
      </p>
      <PlotlyFigure figure={series.figure} name={`${series.title} across tests`} height={340} onPointClick={openTest} />
    </section>
  );
}
