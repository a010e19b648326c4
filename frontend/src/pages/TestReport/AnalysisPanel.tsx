/** Findings of the diagnosis engine (/analysis) for the window: shown when there are any, hidden otherwise. */
import type { Params } from "../../api/client";
import { getAnalysis } from "../../api/endpoints";
import { useApi } from "../../hooks/useApi";
import { formatClock } from "../../lib/format";

function evidenceText(value: unknown): string {
  if (typeof value === "number") return Number.isInteger(value) ? String(value) : value.toFixed(3);
  if (typeof value === "string") return value;
  return JSON.stringify(value);
}

export function AnalysisPanel({
  testId,
  params,
  refresh,
  onJump,
}: {
  testId: number;
  params: Params;
  refresh: number;
  onJump: (ts: number) => void;
}) {
  const key = `${testId}|${JSON.stringify(params)}|${refresh}`;
  const answer = useApi(key, (signal) => getAnalysis(testId, params, signal));
  // 404 = no diagnosis for this test (or the engine is absent): nothing to say, so nothing is shown.
  if (answer.error?.status === 404 || !answer.data || answer.data.length === 0) {
    if (answer.error && answer.error.status !== 404) {
      return <div className="analysis hint">Analysis unavailable: {answer.error.message}</div>;
    }
    return null;
  }
  return (
    <section className="analysis card" aria-label="Analysis">
      <h2>Analysis</h2>
      <ul>
        {answer.data.map((f, i) => (
          <li key={`${f.kind}-${i}`} className={`finding severity-${f.severity}`} data-kind={f.kind}>
            <div className="finding-head">
              <span className="severity">{f.severity}</span> <strong>{f.title}</strong>
            </div>
            <p>{f.text}</p>
            {f.evidence && Object.keys(f.evidence).length > 0 && (
              <dl className="evidence">
                {Object.entries(f.evidence).map(([k, v]) => (
                  <div key={k}>
                    <dt>{k}</dt>
                    <dd>{evidenceText(v)}</dd>
                  </div>
                ))}
              </dl>
            )}
            {f.annotations && f.annotations.length > 0 && (
              <div className="annotations">
                {f.annotations.map((a) => (
                  <button type="button" className="link" key={`${a.ts}-${a.label}`} onClick={() => onJump(a.ts)}>
                    {formatClock(a.ts)} {a.label}
                  </button>
                ))}
              </div>
            )}
          </li>
        ))}
      </ul>
    </section>
  );
}
