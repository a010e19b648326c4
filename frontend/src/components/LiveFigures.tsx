/**
 * An online test's live figures, as its channel sends them (hooks/useLive.ts): the newest stored second's RPS,
 * q95 and errors, and how far the test is (elapsed of planned). Shown in the report's header and the list's rows.
 */
import type { LiveFigures as Figures } from "../hooks/useLive";
import { formatCount, formatDuration, formatMs, formatPercent, formatClock } from "../lib/format";

export function LiveFigures({ live, compact = false }: { live: Figures; compact?: boolean }) {
  const progress =
    live.planned_s !== null ? `${formatDuration(live.elapsed_s)} of ${formatDuration(live.planned_s)}` : formatDuration(live.elapsed_s);
  return (
    <dl className={`live-figures${compact ? " compact" : ""}`} data-live-ts={live.ts} aria-label="Live figures">
      <div>
        <dt>RPS</dt>
        <dd data-live="rps">{formatCount(live.rps)}</dd>
      </div>
      <div>
        <dt>q95, ms</dt>
        <dd data-live="q95">{formatMs(live.q95_ms)}</dd>
      </div>
      <div>
        <dt>errors</dt>
        <dd data-live="errors" className={live.failed > 0 ? "bad" : undefined}>
          {formatCount(live.failed)}
          {compact ? "" : ` (${formatPercent(live.error_share)})`}
        </dd>
      </div>
      <div>
        <dt>{live.planned_s !== null ? "elapsed of planned" : "elapsed"}</dt>
        <dd data-live="elapsed">{progress}</dd>
      </div>
      {!compact && (
        <div>
          <dt>second</dt>
          <dd data-live="second">{formatClock(live.ts)}</dd>
        </div>
      )}
    </dl>
  );
}
