/** One report chart: asks /charts/<name> for the view's window and cases, then draws it (or says why not). */
import { getChart, type ChartName } from "../../api/endpoints";
import type { Params } from "../../api/client";
import { PlotlyFigure, type PlotlyFigureProps } from "../../components/charts/PlotlyFigure";
import { ErrorBox, Loading } from "../../components/States";
import { testKey, useApi } from "../../hooks/useApi";

export function ChartBox({
  testId,
  name,
  title,
  params,
  height,
  onXRange,
  marks,
  onPickSecond,
}: Pick<PlotlyFigureProps, "height" | "onXRange" | "marks" | "onPickSecond"> & {
  testId: number;
  name: ChartName;
  title: string;
  params: Params;
}) {
  const chart = useApi(testKey(testId, "chart", name, params), (signal) => getChart(testId, name, params, signal));
  // The backend's figures carry their own title; then the heading stays for screen readers only.
  // An empty chart is one line that names itself, so its heading goes too.
  const titled = Boolean(chart.data?.figure.layout.title) || (chart.data !== null && chart.data.figure.data.length === 0);
  return (
    <section className="chart-box card" aria-label={title}>
      <h2 className={titled ? "sr-only" : undefined}>{title}</h2>
      {chart.data ? (
        <PlotlyFigure
          figure={chart.data.figure}
          name={title}
          height={height}
          onXRange={onXRange}
          marks={marks}
          onPickSecond={onPickSecond}
        />
      ) : chart.error ? (
        <ErrorBox error={chart.error} what={`the ${title.toLowerCase()} chart`} />
      ) : (
        <Loading what={title.toLowerCase()} />
      )}
    </section>
  );
}
