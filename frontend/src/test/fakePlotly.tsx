/**
 * Stands in for components/charts/PlotlyFigure in jsdom, which has no canvas or WebGL: a figure named as the real
 * one names its chart, carrying the number of traces it was given, so a test sees which charts a tab drew.
 */
import type { PlotlyFigureProps } from "../components/charts/PlotlyFigure";

export function PlotlyFigure({ figure, name }: PlotlyFigureProps) {
  return <figure aria-label={name} data-traces={figure.data.length} />;
}

export function loadPlotly(): Promise<void> {
  return Promise.resolve();
}
