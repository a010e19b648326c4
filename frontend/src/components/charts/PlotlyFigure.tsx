/**
 * The one component that draws Plotly figures. The backend builds every figure (analytics/figures*.py) and
 * sends Plotly JSON; this only renders it, adds the page's common layout defaults and reports an x-axis zoom.
 * plotly.js is loaded on first use, so pages without charts (the test list) never download it.
 */
import { useEffect, useMemo, useRef, useState } from "react";
import type { PlotlyFigureJson } from "../../api/types";
import { useTimeZone } from "../../hooks/useTimeZone";
import { downloadText } from "../../lib/download";
import { axisValueToUnix, markOverlays, type ChartMark } from "../../lib/figures";
import { figureInLocalTime, localAxisToUnix } from "../../lib/timeZone";
import { errorText } from "../../lib/errorText";

/** How long after the reader's last touch of a chart (its press, its release, a wheel) a range change counts as their
 * zoom: plotly reports a drag's range on release, a modebar button's on click. */
const ZOOM_GESTURE_MS = 2_000;

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
  /** Called with the unix second of a clicked point on a time chart (the notes form picks its second so). */
  onPickSecond?: (ts: number) => void;
  /** Called with the clicked point's `customdata` (the dashboard's points carry their test id). */
  onPointClick?: (customdata: unknown) => void;
}

/** Why a figure has nothing to draw, as the backend said (analytics.figures.empty_figure), if it did. */
function emptyReason(figure: PlotlyFigureJson): string | null {
  const meta = figure.layout.meta as { empty_reason?: unknown } | undefined;
  return typeof meta?.empty_reason === "string" ? meta.empty_reason : null;
}

function fileName(name: string): string {
  return name.replace(/[^\w.-]+/g, "-").replace(/^-+|-+$/g, "").toLowerCase() || "chart";
}

/** A mark's second moved to the local wall time, as the chart's x values are in local mode. */
function localAxisShift(ts: number): number {
  return ts + -new Date(ts * 1000).getTimezoneOffset() * 60;
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

export function PlotlyFigure({
  figure: given,
  name,
  height = 380,
  onXRange,
  marks,
  onPickSecond,
  onPointClick,
}: PlotlyFigureProps) {
  const ref = useRef<HTMLDivElement>(null);
  const [failed, setFailed] = useState<string | null>(null);
  const [narrow, setNarrow] = useState(() => window.matchMedia?.("(max-width: 600px)").matches ?? false);
  const zone = useTimeZone();
  const onXRangeRef = useRef(onXRange);
  onXRangeRef.current = onXRange;
  // When the reader last touched the chart (drag, wheel, a modebar button): only a range change that follows one is
  // a zoom. Plotly also reports ranges it sets itself (a refreshed online chart, a resize), which must not pin the
  // report's window and stop it following the test.
  const touchedAt = useRef(0);
  const onPickRef = useRef(onPickSecond);
  onPickRef.current = onPickSecond;
  const local = zone === "local";
  // The backend draws UTC wall time; in local mode every x (and the marks) moves to the browser's wall time.
  const figure = useMemo(() => (local ? figureInLocalTime(given) : given), [given, local]);
  useEffect(() => {
    const query = window.matchMedia?.("(max-width: 600px)");
    if (!query) return;
    const onChange = () => setNarrow(query.matches);
    query.addEventListener("change", onChange);
    return () => query.removeEventListener("change", onChange);
  }, []);
  const toUnix = (value: unknown): number | null => {
    const t = axisValueToUnix(value);
    return t === null ? null : local ? localAxisToUnix(t) : t;
  };
  const onPointClickRef = useRef(onPointClick);
  onPointClickRef.current = onPointClick;
  const empty = !hasPoints(figure);
  // A stable dependency for the effect: the marks' content, not the array's identity.
  const marksKey = JSON.stringify(
    (marks ?? []).map((m) => (local ? { ...m, ts: localAxisShift(m.ts) } : m)),
  );

  useEffect(() => {
    const el = ref.current;
    if (!el || empty) return;
    let cancelled = false;
    el.dataset.drawn = "0";
    loadPlotly()
      .then((Plotly) => {
        if (cancelled) return null;
        const own = figure.layout;
        // The figures are built for the chat preview too (a fixed small PNG); on the page the legend goes under
        // the x axis and its title, placed in pixels (plotly's legend y is a fraction of the plot area), so it
        // never overlaps the axis title whatever the chart's height. Everything else is the figure's own.
        // On a phone the side margins shrink and the legend gets more room below (it wraps to more lines).
        const margin = narrow
          ? { l: 48, r: 44, t: 40, b: 150 }
          : { l: 60, r: 60, t: 40, ...((own.margin as object | undefined) ?? {}), b: 120 };
        const plotHeight = Math.max(80, height - margin.t - margin.b);
        const layout: Record<string, unknown> = {
          font: { family: "system-ui, sans-serif", size: narrow ? 11 : 12 },
          hovermode: "x unified",
          ...own,
          ...(narrow ? { title: { ...((own.title as object | undefined) ?? {}), font: { size: 13 } } } : {}),
          margin,
          legend: {
            orientation: "h",
            ...((own.legend as object | undefined) ?? {}),
            x: 0,
            xanchor: "left",
            yanchor: "top",
            y: -72 / plotHeight,
          },
          ...markOverlays(own, JSON.parse(marksKey) as ChartMark[], el.clientWidth - margin.l - margin.r),
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
        plot.removeAllListeners?.("plotly_click");
        plot.on("plotly_relayout", (ev) => {
          const start = toUnix(ev["xaxis.range[0]"]);
          const end = toUnix(ev["xaxis.range[1]"]);
          const byReader = performance.now() - touchedAt.current < ZOOM_GESTURE_MS;
          if (start !== null && end !== null && byReader) onXRangeRef.current?.(start, end);
        });
        plot.on("plotly_click", (ev) => {
          const point = (ev.points as { x?: unknown; customdata?: unknown }[] | undefined)?.[0];
          if (point?.customdata !== undefined) onPointClickRef.current?.(point.customdata);
          const t = toUnix(point?.x);
          if (t !== null && t > 1e9) onPickRef.current?.(Math.floor(t));
        });
      })
      .catch((e: unknown) => {
        if (!cancelled) setFailed(errorText(e));
      });
    return () => {
      cancelled = true;
    };
    // toUnix follows `local`, which changes `figure` too.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [figure, height, name, empty, marksKey, narrow]);

  const save = (format: "png" | "svg") => {
    const el = ref.current;
    if (!el || !plotlyPromise) return;
    void plotlyPromise.then((Plotly) =>
      Plotly.downloadImage(el, { format, filename: fileName(name), width: Math.max(el.clientWidth, 900), height }),
    );
  };
  const saveJson = () => downloadText(`${fileName(name)}.json`, JSON.stringify(given, null, 1), "application/json");

  useEffect(() => {
    const el = ref.current;
    const touched = () => {
      touchedAt.current = performance.now();
    };
    el?.addEventListener("pointerdown", touched, true);
    el?.addEventListener("pointerup", touched, true);
    el?.addEventListener("wheel", touched, { capture: true, passive: true });
    return () => {
      el?.removeEventListener("pointerdown", touched, true);
      el?.removeEventListener("pointerup", touched, true);
      el?.removeEventListener("wheel", touched, true);
      if (el && plotlyPromise) void plotlyPromise.then((Plotly) => Plotly.purge(el));
    };
  }, []);

  if (failed) return <div className="state error">The chart could not be drawn: {failed}</div>;
  if (empty) {
    // Not an empty frame of axes: one line saying why there is nothing to draw.
    const reason = emptyReason(given);
    return (
      <p className="chart-empty" role="note" aria-label={`${name}: no data`} data-empty-chart={name}>
        {reason ? (
          <>
            <strong>{name}:</strong> {reason}
          </>
        ) : (
          `No data for ${name} in this window.`
        )}
      </p>
    );
  }
  return (
    <div className="chart-wrap">
      <div ref={ref} className="chart" role="img" aria-label={name} data-chart={name} style={{ minHeight: height }} />
      <div className="chart-export" role="group" aria-label={`Export ${name}`}>
        <button type="button" className="small" onClick={() => save("png")} aria-label={`Download ${name} as PNG`}>
          PNG
        </button>
        <button type="button" className="small" onClick={() => save("svg")} aria-label={`Download ${name} as SVG`}>
          SVG
        </button>
        <button type="button" className="small" onClick={saveJson} aria-label={`Download ${name} as JSON`}>
          JSON
        </button>
      </div>
    </div>
  );
}
