/** What Plotly leaves on a drawn chart's element: the specs read the figure as drawn from there. */
export interface PlotlyTrace {
  name?: string;
  x?: number[];
  y?: unknown[];
  values?: unknown[];
  line?: { color?: string };
  fillcolor?: string;
  customdata?: unknown[];
}

export interface PlotlyAxis {
  title: { text?: string };
}

export interface PlotlyLayout {
  showlegend?: boolean;
  shapes?: unknown[];
  annotations?: { hovertext?: string; text: string }[];
  xaxis: PlotlyAxis;
  yaxis: PlotlyAxis;
  yaxis2?: PlotlyAxis;
}

export interface PlotlyElement extends HTMLElement {
  data: PlotlyTrace[];
  layout: PlotlyLayout;
  emit(event: string, payload: unknown): void;
}
