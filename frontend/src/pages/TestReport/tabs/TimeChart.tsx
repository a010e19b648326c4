import type { ChartName } from "../../../api/endpoints";
import { ChartBox } from "../ChartBox";
import type { ChartTabProps } from "./chartTab";

/** A time chart of the test: it follows the window, marks the findings and notes, and zooms the window. */
export function TimeChart({ tab, name, title, height }: { tab: ChartTabProps; name: ChartName; title: string; height?: number }) {
  return <ChartBox {...tab} name={name} title={title} height={height} />;
}
