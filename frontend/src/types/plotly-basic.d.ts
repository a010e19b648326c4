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
    downloadImage(
      el: HTMLElement,
      options: { format: "png" | "svg"; filename: string; width?: number; height?: number; scale?: number },
    ): Promise<string>;
    Plots: { resize(el: HTMLElement): void };
  };
  export default Plotly;
}
