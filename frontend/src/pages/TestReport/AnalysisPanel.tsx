/**
 * Findings of the diagnosis engine (/analysis, computed once per test after it is complete) and its figures
 * (e.g. the scalability fit). Shown while pending, hidden when there is nothing to say or no engine (404).
 */
import type { ApiError } from "../../api/client";
import { getAnalysis } from "../../api/endpoints";
import type { AnalysisAnswer, Finding } from "../../api/types";
import { PlotlyFigure } from "../../components/charts/PlotlyFigure";
import { testKey, useApi } from "../../hooks/useApi";
import { formatClock, formatCount, formatPercent, formatUnix } from "../../lib/format";

function evidenceText(key: string, value: unknown): string {
  if (typeof value === "number") {
    if ((key === "ts" || key.endsWith("_ts")) && value > 1e9) return formatUnix(value);
    if (key === "share" || key.includes("share")) return formatPercent(value);
    return formatCount(value);
  }
  if (typeof value === "string") return value;
  return JSON.stringify(value);
}

/**
 * What a finding shows under its text: its facts in words, or (a finding without them, such as the unreadable load
 * scheme's) its evidence without nulls.
 */
export function findingRows(f: Finding): { label: string; value: string }[] {
  if (f.facts && f.facts.length > 0) return f.facts;
  return Object.entries(f.evidence)
    .filter(([, v]) => v !== null && v !== undefined)
    .map(([k, v]) => ({ label: k.replace(/_/g, " "), value: evidenceText(k, v) }));
}

const FIGURE_TITLES: Record<string, string> = {
  usl: "Universal Scalability Law fit",
  imbalance: "Imbalance point",
  littles_law: "Little's law: the generator's limit",
};

/** The test's analysis, polled while the engine is still working on it; it then stays until the test changes. */
export function useAnalysis(testId: number, complete: boolean): { data: AnalysisAnswer | null; error: ApiError | null } {
  // The engine runs once a test is complete: an online or processing test stays pending, so it is not polled.
  const { data, error } = useApi(testKey(testId, "analysis"), (signal) => getAnalysis(testId, signal), {
    refetchInterval: (answer) => (complete && answer?.status === "pending" ? 3000 : false),
  });
  return { data, error };
}

export function AnalysisPanel({
  analysis,
  complete,
  onJump,
}: {
  analysis: { data: AnalysisAnswer | null; error: ApiError | null };
  complete: boolean;
  onJump: (ts: number) => void;
}) {
  const { data, error } = analysis;
  if (!complete && (!data || data.status === "pending")) {
    return <div className="analysis hint">The analysis (imbalance, generator limit, tails) runs when the test is complete.</div>;
  }
  if (error?.status === 404 || (!data && !error)) return null;
  if (error) return <div className="analysis hint">Analysis unavailable: {error.message}</div>;
  if (!data) return null;
  if (data.status === "pending") {
    return (
      <div className="state loading analysis" role="status">
        <span className="spinner" aria-hidden="true" /> Analysing the test (imbalance, generator limit, tails)…
      </div>
    );
  }
  if (data.status === "failed") {
    return <div className="analysis hint">The analysis failed{data.error ? `: ${data.error}` : "."}</div>;
  }
  const figures = Object.entries(data.figures);
  if (data.findings.length === 0 && figures.length === 0) return null;
  return (
    <section className="analysis card" aria-label="Analysis">
      <h2>Analysis</h2>
      <ul>
        {data.findings.map((f, i) => (
          <li key={`${f.kind}-${i}`} className={`finding severity-${f.severity}`} data-kind={f.kind}>
            <div className="finding-head">
              <span className="severity">{f.severity}</span> <strong>{f.title}</strong>
            </div>
            <p>{f.text}</p>
            {findingRows(f).length > 0 && (
              <dl className="evidence">
                {findingRows(f).map((row) => (
                  <div key={row.label}>
                    <dt>{row.label}</dt>
                    <dd>{row.value}</dd>
                  </div>
                ))}
              </dl>
            )}
            {f.annotations.length > 0 && (
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
      {figures.length > 0 && (
        <div className="charts grid">
          {figures.map(([name, figure]) => (
            <PlotlyFigure key={name} figure={figure} name={FIGURE_TITLES[name] ?? name} height={320} />
          ))}
        </div>
      )}
    </section>
  );
}
