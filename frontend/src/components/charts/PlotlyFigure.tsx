/**
 * The one component that draws Plotly figures. The backend builds every figure (analytics/figures*.py) and
 * sends Plotly JSON; this only renders it, adds the page's common layout defaults and reports an x-axis zoom.
 * plotly.js is loaded on first use, so pages without charts (the test list) never download it.
 */
import { useEffect, useRef, useState } from "react";
import type { PlotlyFigureJson } from "../../api/types";
import { markOverlays, type ChartMark } from "../../lib/figures";

export type { ChartMark };

type PlotlyModule = typeof import("plotly.js-basic-dist-min").default;
let plotlyPromise: Promise<PlotlyModule> | null = null;

/** Starts downloading plotly.js; pages with charts call it on mount, in parallel with their API calls. */
export function loadPlotly(): Promise<PlotlyModule> {
  plotlyPromise ??= import("plotly.js-basic-dist-min").then((m) => m.default);
  return plotlyPromise;
}

declare global {
  interface Window {
    /** performance.now() when the first chart of the page was drawn; read by the browser tests. */
    __tankodromFirstChartMs?: number;
  }
}

export interface PlotlyFigureProps {
  figure: PlotlyFigureJson;
  /** Names the chart for screen readers and the browser tests. */
  name: string;
  height?: number;
  /** Called with the new x range when the user zooms (numbers or date strings, as the axis has them). */
  onXRange?: (start: unknown, end: unknown) => void;
  marks?: ChartMark[];
  /** Called with the clicked point's `customdata` (the dashboard's points carry their test id). */
  onPointClick?: (customdata: unknown) => void;
}

function hasPoints(figure: PlotlyFigureJson): boolean {
  return figure.data.some((trace) => {
    for (const key of ["x", "y", "values"]) {
      const v = trace[key];
      if (Array.isArray(v) && v.length > 0) return true;
    }
    return false;
  });
}

export function PlotlyFigure({ figure, name, height = 380, onXRange, marks, onPointClick }: PlotlyFigureProps) {
  const ref = useRef<HTMLDivElement>(null);
  const [failed, setFailed] = useState<string | null>(null);
  const onXRangeRef = useRef(onXRange);
  onXRangeRef.current = onXRange;
  const onPointClickRef = useRef(onPointClick);
  onPointClickRef.current = onPointClick;
  const empty = !hasPoints(figure);
  // A stable dependency for the effect: the marks' content, not the array's identity.
  const marksKey = JSON.stringify(marks ?? []);

  useEffect(() => {
    const el = ref.current;
    if (!el || empty) return;
    let cancelled = false;
    el.dataset.drawn = "0";
    loadPlotly()
      .then((Plotly) => {
        if (cancelled) return null;
        const given = figure.layout ?? {};
        // The figures are built for the chat preview too (a fixed small PNG); on the page the legend goes under
        // the x axis and its title, placed in pixels (plotly's legend y is a fraction of the plot area), so it
        // never overlaps the axis title whatever the chart's height. Everything else is the figure's own.
        const margin = { l: 60, r: 60, t: 40, ...((given.margin as object | undefined) ?? {}), b: 120 };
        const plotHeight = Math.max(80, height - margin.t - margin.b);
        const layout: Record<string, unknown> = {
          font: { family: "system-ui, sans-serif", size: 12 },
          hovermode: "x unified",
          ...given,
          margin,
          legend: {
            orientation: "h",
            ...((given.legend as object | undefined) ?? {}),
            x: 0,
            xanchor: "left",
            yanchor: "top",
            y: -72 / plotHeight,
          },
          ...markOverlays(given, JSON.parse(marksKey) as ChartMark[]),
          height,
          autosize: true,
          // Keeps the user's zoom when the same chart is refreshed (an online test polls).
          uirevision: name,
        };
        return Plotly.react(el, figure.data, layout, {
          responsive: true,
          displaylogo: false,
          modeBarButtonsToRemove: ["lasso2d", "select2d"],
        });
      })
      .then((plot) => {
        if (!plot || cancelled) return;
        el.dataset.drawn = "1";
        window.__tankodromFirstChartMs ??= performance.now();
        plot.removeAllListeners?.("plotly_relayout");
        plot.on("plotly_relayout", (ev) => {
          const start = ev["xaxis.range[0]"];
          const end = ev["xaxis.range[1]"];
          if (start !== undefined && end !== undefined) onXRangeRef.current?.(start, end);
        });
        plot.removeAllListeners?.("plotly_click");
        plot.on("plotly_click", (ev) => {
          const point = (ev as { points?: { customdata?: unknown }[] }).points?.[0];
          if (point?.customdata !== undefined) onPointClickRef.current?.(point.customdata);
        });
      })
      .catch((e: unknown) => {
        if (!cancelled) setFailed(e instanceof Error ? e.message : String(e));
      });
    return () => {
      cancelled = true;
    };
  }, [figure, height, name, empty, marksKey]);

  useEffect(() => {
    const el = ref.current;
    return () => {
      if (el && plotlyPromise) void plotlyPromise.then((Plotly) => Plotly.purge(el));
    };
  }, []);

  if (failed) return <div className="state error">The chart could not be drawn: {failed}</div>;
  if (empty) {
    return (
      <div className="chart-empty" role="img" aria-label={`${name}: no data`} style={{ height }}>
        No data for {name} in this window.
      </div>
    );
  }
  return <div ref={ref} className="chart" role="img" aria-label={name} data-chart={name} style={{ minHeight: height }} />;
}
