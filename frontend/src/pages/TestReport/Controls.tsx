/**
 * The controls every tab shares: the time window (two sliders over the test's seconds, or typed clock times),
 * the cases, and the chart resolution. Changes are written to the hash after a short pause, so dragging a
 * slider does not fire a request per pixel.
 */
import { useEffect, useState } from "react";
import { CasePicker } from "../../components/CasePicker";
import { formatClock, formatDuration } from "../../lib/format";
import { WindowSlider } from "./WindowSlider";
import type { ViewState } from "../../lib/viewState";

const RATIOS = [1, 2, 5, 10, 15, 30, 60, 300];

export function Controls({
  view,
  bounds,
  cases,
  onChange,
}: {
  view: ViewState;
  bounds: { first: number; last: number } | null;
  cases: string[];
  onChange: (patch: Partial<ViewState>) => void;
}) {
  const from = view.from ?? bounds?.first ?? 0;
  const to = view.to ?? bounds?.last ?? 0;
  const [draft, setDraft] = useState({ from, to });
  useEffect(() => setDraft({ from, to }), [from, to]);

  useEffect(() => {
    if (!bounds || (draft.from === from && draft.to === to)) return;
    const id = window.setTimeout(() => {
      const full = draft.from <= bounds.first && draft.to >= bounds.last;
      onChange(full ? { from: null, to: null } : { from: draft.from, to: draft.to });
    }, 350);
    return () => window.clearTimeout(id);
  }, [draft, bounds, from, to, onChange]);

  return (
    <section className="controls card" aria-label="View controls">
      <div className="window">
        <div className="window-head">
          <strong>Time window</strong>
          {bounds ? (
            <span>
              {formatClock(draft.from)} – {formatClock(draft.to)} ({formatDuration(draft.to - draft.from + 1)} of{" "}
              {formatDuration(bounds.last - bounds.first + 1)})
            </span>
          ) : (
            <span className="hint">no data yet</span>
          )}
          {(view.from !== null || view.to !== null) && (
            <button type="button" onClick={() => onChange({ from: null, to: null })}>
              Whole test
            </button>
          )}
        </div>
        {bounds && bounds.last > bounds.first && (
          <div className="sliders">
            <WindowSlider
              label="Window start"
              name="slider_start"
              bounds={bounds}
              value={draft.from}
              onChange={(v) => setDraft((d) => ({ from: Math.min(v, d.to), to: d.to }))}
            />
            <WindowSlider
              label="Window end"
              name="slider_end"
              bounds={bounds}
              value={draft.to}
              onChange={(v) => setDraft((d) => ({ from: d.from, to: Math.max(v, d.from) }))}
            />
          </div>
        )}
      </div>
      <div className="row">
        <CasePicker
          cases={cases}
          chosen={view.cases}
          onChange={(chosen) => onChange({ cases: chosen })}
          none="the test has no cases"
        />
        <label className="resolution">
          Resolution
          <select
            name="compress_ratio"
            value={view.compressRatio === null ? "auto" : String(view.compressRatio)}
            onChange={(e) => onChange({ compressRatio: e.target.value === "auto" ? null : Number(e.target.value) })}
          >
            <option value="auto">auto</option>
            {RATIOS.map((r) => (
              <option key={r} value={r}>
                {r} sec. per dot
              </option>
            ))}
          </select>
        </label>
      </div>
    </section>
  );
}
