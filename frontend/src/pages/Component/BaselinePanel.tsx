/** The component's baseline: which test it is, who chose it, and (for those who may) choosing another or none. */
import { useState } from "react";
import { clearBaseline, setBaseline } from "../../api/regressions";
import type { BaselineTest, DashboardTest } from "../../api/types";
import { useAction } from "../../hooks/useAction";
import { formatIso, formatUnix } from "../../lib/format";

export function BaselinePanel({
  component,
  project,
  baseline,
  tests,
  canEdit,
  refused,
  onChanged,
}: {
  component: string;
  project: string;
  baseline: BaselineTest | null;
  tests: DashboardTest[];
  canEdit: boolean;
  /** Said instead of the form to a reader who may not change it (the role needed and the one held). */
  refused?: string | null;
  onChanged: () => void;
}) {
  const newest = tests[tests.length - 1];
  const [choice, setChoice] = useState<string>(String(baseline?.id ?? newest?.id ?? ""));
  const { error, run } = useAction();
  const act = async (action: () => Promise<unknown>) => {
    if (await run(action)) onChanged();
  };
  return (
    <section className="card baseline-card" aria-label="Baseline">
      <h2>Baseline</h2>
      {baseline ? (
        <p>
          <a href={baseline.url}>
            #{baseline.id} {baseline.name}
          </a>
          {baseline.version && <span className="hint"> version {baseline.version}</span>}
          <span className="hint">
            {" "}
            · started {formatUnix(baseline.ts)}
            {baseline.set_by && ` · chosen by ${baseline.set_by}`}
            {baseline.set_at && ` on ${formatIso(baseline.set_at)}`}
          </span>
        </p>
      ) : (
        <p className="hint">
          No baseline yet: relative thresholds and the check's comparison need one. Checks judge by absolute
          thresholds meanwhile.
        </p>
      )}
      {!canEdit && refused && (
        <p className="refused" data-refused="baseline">
          {refused}
        </p>
      )}
      {canEdit && tests.length > 0 && (
        <form
          className="row baseline-form"
          onSubmit={(e) => {
            e.preventDefault();
            const id = Number(choice);
            if (id > 0) void act(() => setBaseline(component, project, id));
          }}
        >
          <label>
            Test{" "}
            <select aria-label="Baseline test" value={choice} onChange={(e) => setChoice(e.target.value)}>
              {[...tests].reverse().map((t) => (
                <option key={t.id} value={t.id}>
                  #{t.id} {t.name} {t.version && `(${t.version})`}
                </option>
              ))}
            </select>
          </label>
          <button type="submit" className="button primary">
            Mark as baseline
          </button>
          {baseline && (
            <button type="button" className="button" onClick={() => void act(() => clearBaseline(component, project))}>
              Clear
            </button>
          )}
          {error && (
            <span className="state error inline" role="alert">
              {error}
            </span>
          )}
        </form>
      )}
    </section>
  );
}
