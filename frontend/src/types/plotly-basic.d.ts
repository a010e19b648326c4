// The slice of plotly.js's API that PlotlyFigure uses (the dist bundle ships no types).
declare module "plotly.js-basic-dist-min" {
  export interface PlotlyElement extends HTMLElement {
    on(event: string, handler: (event: Record<string, unknown>) => void): void;
    removeAllListeners?: (event: string) => void;
  }
  const Plotly: {
    react(
      el: HTMLElement,
      data: Record<string, unknown>[],
      layout?: Record<string, unknown>,
      config?: Record<string, unknown>,
    ): Promise<PlotlyElement>;
    purge(el: HTMLElement): void;
    Plots: { resize(el: HTMLElement): void };
  };
  export default Plotly;
}
