/** Pure helpers around the backend's Plotly JSON: find figures in an answer, read zoomed axis values. */
import type { PlotlyFigureJson } from "../api/types";

export function isFigure(value: unknown): value is PlotlyFigureJson {
  if (typeof value !== "object" || value === null) return false;
  const { data, layout } = value as Record<string, unknown>;
  return Array.isArray(data) && typeof layout === "object" && layout !== null;
}

export interface FoundFigure {
  /** Names on the way to the figure (host, group, ...), for headings and filters. */
  path: string[];
  figure: PlotlyFigureJson;
}

function labelOf(o: Record<string, unknown>): string | null {
  for (const k of ["host", "name", "group", "title", "metric"]) {
    const v = o[k];
    if (typeof v === "string" && v) return v;
  }
  return null;
}

/**
 * Every figure in a JSON answer, in document order, with the names leading to it. Shapes such as
 * `{hosts: [{host, groups: [{name, figure}]}]}` and `{host: {group: figure}}` both give [host, group].
 */
export function collectFigures(value: unknown, path: string[] = []): FoundFigure[] {
  if (isFigure(value)) return [{ path, figure: value }];
  if (Array.isArray(value)) return value.flatMap((item) => collectFigures(item, path));
  if (typeof value !== "object" || value === null) return [];
  const o = value as Record<string, unknown>;
  const here = labelOf(o);
  const base = here ? [...path, here] : path;
  const out: FoundFigure[] = [];
  for (const [k, v] of Object.entries(o)) {
    if (typeof v !== "object" || v === null) continue;
    // Keys of a dict of named things are names; container keys (figure, groups, hosts...) are not.
    const container = ["figure", "figures", "groups", "hosts", "items", "metrics", "charts", "data"].includes(k);
    out.push(...collectFigures(v, container || Array.isArray(o) ? base : [...base, k]));
  }
  return out;
}

/**
 * An x-axis value from a zoom as unix seconds. Numbers are seconds (or ms when huge); date strings without a
 * zone are UTC, since the backend writes UTC and plotly hands the strings back as they were shown.
 */
export function axisValueToUnix(value: unknown): number | null {
  if (typeof value === "number" && Number.isFinite(value)) return value >= 1e11 ? value / 1000 : value;
  if (typeof value !== "string" || value.trim() === "") return null;
  const s = value.trim();
  if (/^-?\d+(\.\d+)?$/.test(s)) return axisValueToUnix(Number(s));
  const hasZone = /(Z|[+-]\d{2}:?\d{2})$/.test(s);
  const t = Date.parse(hasZone ? s : `${s.replace(" ", "T")}Z`);
  return Number.isNaN(t) ? null : t / 1000;
}

/** A zoom's range as a whole-second window inside the test's bounds, or null when it is not a usable range. */
export function zoomToWindow(
  start: unknown,
  end: unknown,
  bounds: { first: number; last: number },
): { from: number; to: number } | null {
  const a = axisValueToUnix(start);
  const b = axisValueToUnix(end);
  // Charts of relative time (seconds from start) or of load (RPS) are not on the wall clock: ignore them.
  if (a === null || b === null || a < 1e9 || b < 1e9) return null;
  const from = Math.max(bounds.first, Math.floor(Math.min(a, b)));
  const to = Math.min(bounds.last, Math.ceil(Math.max(a, b)));
  return from <= to ? { from, to } : null;
}

/** A moment to mark on a time chart (a finding of the analysis), unix seconds. */
export interface ChartMark {
  ts: number;
  label: string;
  colour?: string;
}

/** Text for plotly, which renders a subset of HTML in labels: `<a href>` in a note must stay text. */
export function plotlyText(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/**
 * Rows for labels on a time axis so that close ones do not print over each other: a label goes to the first row
 * whose previous label is at least `gap` away (`gap` in the axis' units).
 */
export function labelRows(xs: number[], gap: number): number[] {
  const order = xs.map((x, i) => [x, i] as const).sort((a, b) => a[0] - b[0]);
  const lastInRow: number[] = [];
  const rows = new Array<number>(xs.length).fill(0);
  for (const [x, i] of order) {
    let row = lastInRow.findIndex((last) => x - last >= gap);
    if (row === -1) row = lastInRow.length;
    lastInRow[row] = x;
    rows[i] = row;
  }
  return rows;
}

/**
 * Vertical dotted lines with labels at the marks inside the figure's time range. Only for date x axes (the
 * backend's time charts, x in epoch ms); other charts (by load, distributions) have no time to mark. Labels that
 * would overlap go one row lower; each mark may carry its own colour (findings red, notes blue).
 */
export function markOverlays(
  layout: Record<string, unknown>,
  marks: ChartMark[],
  plotWidthPx = 900,
): Record<string, unknown> {
  const xaxis = (layout.xaxis ?? {}) as Record<string, unknown>;
  if (xaxis.type !== "date" || marks.length === 0) return {};
  const range = Array.isArray(xaxis.range) ? (xaxis.range as unknown[]).map(Number) : null;
  const inside = marks.filter((m) => !range || (m.ts * 1000 >= (range[0] ?? -Infinity) && m.ts * 1000 <= (range[1] ?? Infinity)));
  if (inside.length === 0) return {};
  const span = range && range[0] !== undefined && range[1] !== undefined ? range[1] - range[0] : 0;
  // A label is up to ~40 characters at 10 px (~130 px wide): closer marks than that go on separate rows.
  const labelPx = Math.min(130, Math.max(60, ...inside.map((m) => Math.min(40, m.label.length) * 6)));
  const rows = labelRows(
    inside.map((m) => m.ts * 1000),
    span > 0 ? (span * labelPx) / Math.max(100, plotWidthPx) : 1,
  );
  const colourOf = (m: ChartMark) => m.colour ?? "#c0392b";
  return {
    shapes: [
      ...((layout.shapes as unknown[] | undefined) ?? []),
      ...inside.map((m) => ({
        type: "line",
        xref: "x",
        yref: "paper",
        x0: m.ts * 1000,
        x1: m.ts * 1000,
        y0: 0,
        y1: 1,
        line: { color: colourOf(m), width: 1, dash: "dot" },
      })),
    ],
    annotations: [
      ...((layout.annotations as unknown[] | undefined) ?? []),
      ...inside.map((m, i) => ({
        x: m.ts * 1000,
        xref: "x",
        y: 1 - (rows[i] ?? 0) * 0.09,
        yref: "paper",
        yanchor: "top",
        xanchor: "left",
        text: plotlyText(m.label.length > 40 ? `${m.label.slice(0, 39)}…` : m.label),
        hovertext: plotlyText(m.label),
        showarrow: false,
        bgcolor: "rgba(255,255,255,0.85)",
        font: { size: 10, color: colourOf(m) },
      })),
    ],
  };
}
