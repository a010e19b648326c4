/**
 * `/compare/<a>/<b>[/<c>...]`: the comparison in one line per test, the cumulative-quantiles table in Overload's
 * form with each verdict beside the figure it judges (or "not judged" and why), the code shares side by side, and
 * overlaid charts aligned from each test's start. The window and cases are in the hash
 * (`#tags=&slider_start=&slider_end=&align=start`); with align=start they are seconds from each start.
 */
import { useEffect, useState } from "react";
import { getCompare, getReport, getTest } from "../../api/endpoints";
import { getBaseline } from "../../api/regressions";
import { componentUrl } from "../../lib/project";
import type { TestMeta } from "../../api/types";
import { PlotlyFigure, loadPlotly } from "../../components/charts/PlotlyFigure";
import { CasePicker } from "../../components/CasePicker";
import { Empty, ErrorBox, Loading } from "../../components/States";
import { TableCard, TestColumns } from "../../components/TableCard";
import { componentKey, useApi } from "../../hooks/useApi";
import { useUrlState } from "../../hooks/useUrlState";
import { codeRows, quantileRows, type CompareCodes, type VerdictWord } from "../../lib/compareTable";
import { COMPARE_VIEW, compareParams } from "../../lib/compareView";
import { formatCount } from "../../lib/format";
import "./compare.css";

/** The page compares at most this many tests (the API takes more); a longer link shows the first ones. */
export const MAX_COMPARE = 5;

const FIGURE_TITLES: Record<string, string> = {
  quantiles: "Response time quantiles, aligned from each test's start",
  rps: "Responses per second",
  distribution: "Response time distributions",
  http_codes: "HTTP codes",
  net_codes: "Net codes",
  quantiles_by_load: "Quantiles by load",
};

function Verdict({ verdict, note }: { verdict: VerdictWord | null; note?: string | null }) {
  if (!verdict) return null;
  const kind = verdict === "not judged" ? "unjudged" : verdict;
  return (
    <span className={`verdict verdict-${kind}`} title={note ?? undefined} data-verdict={kind}>
      {verdict}
    </span>
  );
}

/** Each test's share of a code with its count beside it; the share's difference coloured by its verdict (more of
 * a failing code is worse, more of a successful one better), never by the sign alone. */
function CodeDiff({ title, answer, kind }: { title: string; answer: CompareCodes; kind: "http" | "net" }) {
  const rows = codeRows(answer, kind);
  const tests = answer.tests;
  return (
    <TableCard label={title} table={title} instead={rows.length === 0 && <Empty>No codes.</Empty>}>
      <TestColumns first={<th scope="col">Code</th>} tests={tests} />
      <tbody>
        {rows.map((r) => (
          <tr key={r.code} data-code={r.code}>
            <th scope="row">
              {r.code}
              {r.name ? <span className="hint"> {r.name}</span> : null}
            </th>
            {r.cells.map((c, i) => (
              <td className={`num${c.verdict && c.verdict !== "same" ? ` cell-${c.verdict}` : ""}`} key={tests[i]}>
                <span className="value">{c.share}</span> <span className="hint">({formatCount(c.count)})</span>
                {c.diff && (
                  <div className="hint">
                    {c.diff} <Verdict verdict={c.verdict} />
                  </div>
                )}
              </td>
            ))}
          </tr>
        ))}
      </tbody>
    </TableCard>
  );
}

/** The compared window: seconds from each test's start (align=start) or unix seconds (absolute). */
function WindowInputs({
  align,
  from,
  to,
  onChange,
}: {
  align: string;
  from: string;
  to: string;
  onChange: (from: string, to: string) => void;
}) {
  const [draft, setDraft] = useState({ from, to });
  useEffect(() => setDraft({ from, to }), [from, to]);
  const unit = align === "start" ? "s from start" : "unix s";
  const clean = (v: string) => (/^\d+$/.test(v.trim()) ? v.trim() : "");
  return (
    <form
      className="compare-window"
      onSubmit={(e) => {
        e.preventDefault();
        onChange(clean(draft.from), clean(draft.to));
      }}
    >
      {(["from", "to"] as const).map((end) => (
        <label key={end}>
          {end === "from" ? `From (${unit})` : `To (${unit}, excluded)`}
          <input
            type="text"
            inputMode="numeric"
            size={10}
            value={draft[end]}
            placeholder={end === "from" ? "start" : "end"}
            onChange={(e) => setDraft({ ...draft, [end]: e.target.value })}
          />
        </label>
      ))}
      <button type="submit">Apply</button>
    </form>
  );
}

/**
 * Links the component's baseline when the compared tests share a component (a name within one project) and the
 * baseline is not among them.
 */
function BaselineLink({ ids, component, project }: { ids: number[]; component: string; project: string }) {
  const baseline = useApi(component ? componentKey(project, component, "baseline") : null, (signal) =>
    getBaseline(component, project, signal),
  );
  const b = baseline.data?.baseline;
  if (!b) return null;
  if (ids.includes(b.id)) {
    return (
      <p className="hint baseline-note">
        #{b.id} is the baseline of <a href={componentUrl(component, project)}>{component}</a>.
      </p>
    );
  }
  const withBaseline = [b.id, ...ids].slice(0, MAX_COMPARE);
  return (
    <p className="baseline-note">
      <a href={`/compare/${withBaseline.join("/")}`}>
        Compare against the baseline of {component}, #{b.id}
      </a>
      {b.name ? <span className="hint"> ({b.name})</span> : null}
    </p>
  );
}

export function ComparePage({ ids: asked }: { ids: number[] }) {
  const ids = asked.slice(0, MAX_COMPARE);
  const [h, setH] = useUrlState("hash", COMPARE_VIEW, { normalise: true });
  useEffect(() => {
    void loadPlotly().catch(() => undefined);
  }, []);
  useEffect(() => {
    document.title = `Compare ${ids.map((i) => `#${i}`).join(" vs ")} · Tankodrom`;
  }, [ids]);

  const params = compareParams(ids, h);
  const answer = useApi(["compare", params], (signal) => getCompare(params, signal));
  const metas = useApi(["compare", ids, "metas"], (signal) =>
    Promise.all(ids.map((id) => getTest(id, signal).catch(() => null))),
  );
  const reports = useApi(["compare", ids, "reports"], (signal) =>
    Promise.all(ids.map((id) => getReport(id, signal).catch(() => null))),
  );
  const allCases = [...new Set((reports.data ?? []).flatMap((r) => r?.cases ?? []))].sort();
  const byId = new Map<number, TestMeta>();
  for (const m of metas.data ?? []) if (m) byId.set(m.id, m);

  const data = answer.data;
  const tests = data?.tests ?? ids;
  const rows = data ? quantileRows(data) : [];
  const warmup = Math.max(0, ...(data?.warmup_s ?? []));
  // A component is a name within a project: the same name in two projects is two components.
  const components = [...new Set((metas.data ?? []).map((m) => JSON.stringify([m?.project ?? "", m?.component ?? ""])))];
  const [sharedProject, shared] =
    components.length === 1 ? (JSON.parse(components[0] ?? "[]") as [string, string]) : ["", ""];

  return (
    <main className="page wide compare">
      <h1>Compare {tests.map((t) => `#${t}`).join(" · ")}</h1>
      {asked.length > MAX_COMPARE && (
        <div className="state empty" role="status">
          This page compares up to {MAX_COMPARE} tests: showing the first {MAX_COMPARE} of the {asked.length} in the
          link.
        </div>
      )}
      <section className="card compare-tests" aria-label="Tests">
        <ol>
          {tests.map((t, i) => (
            <li key={t}>
              <a href={`/${t}`}>#{t}</a> {byId.get(t)?.name ?? ""}
              {byId.get(t)?.version ? <span className="hint"> version {byId.get(t)?.version}</span> : null}
              {i === 0 && <span className="hint"> (reference: the others are judged against it)</span>}
            </li>
          ))}
        </ol>
        {shared && <BaselineLink ids={tests} component={shared} project={sharedProject} />}
        <div className="row">
          <label>
            Align
            <select
              value={h.align}
              onChange={(e) => setH({ ...h, align: e.target.value === "absolute" ? "absolute" : "start" })}
            >
              <option value="start">from each test's start</option>
              <option value="absolute">absolute time</option>
            </select>
          </label>
          <WindowInputs
            align={h.align}
            from={h.from}
            to={h.to}
            onChange={(from, to) => setH({ ...h, from, to })}
          />
          {allCases.length > 0 && (
            <CasePicker cases={allCases} chosen={h.cases} onChange={(cases) => setH({ ...h, cases })} />
          )}
        </div>
      </section>
      {answer.error ? (
        <ErrorBox error={answer.error} what="the comparison" />
      ) : !data ? (
        <Loading what="the comparison" />
      ) : (
        <>
          <section className="card compare-summary" aria-label="Summary">
            {data.summary.map((line) => (
              <p key={line}>{line}</p>
            ))}
          </section>
          <TableCard
            label="Cumulative quantiles"
            head={
              <h2>
                Cumulative quantiles, ms{" "}
                <span className="hint">
                  whole window with its difference; the verdict judges the typical stretch of seconds beside it
                </span>
              </h2>
            }
            table="compare-quantiles"
            className="compare-table"
            instead={rows.length === 0 && <Empty>No responses to compare in this window.</Empty>}
            foot={data.method && <p className="hint">{data.method}</p>}
          >
            <TestColumns first={<th scope="col" />} tests={tests} />
            <tbody>
              {rows.map((r) => (
                <tr key={r.level} data-level={r.level}>
                  <th scope="row">{r.level}%</th>
                  {r.cells.map((c, i) => (
                    <td
                      className={`num${c.verdict === "worse" || c.verdict === "better" ? ` cell-${c.verdict}` : ""}`}
                      key={tests[i]}
                    >
                      <span className="value">{c.text}</span>
                      {c.pct && <span className="pct"> {c.pct}</span>} <Verdict verdict={c.verdict} note={c.note} />
                      {c.judged && (
                        <div className="hint judged" title="the typical change of a stretch of seconds, and its interval">
                          per stretch {c.judged}
                        </div>
                      )}
                      {c.note && <div className="hint note">{c.note}</div>}
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </TableCard>
          <div className="two-col">
            <CodeDiff title="HTTP codes" answer={data} kind="http" />
            <CodeDiff title="Net codes" answer={data} kind="net" />
          </div>
          {warmup > 0 && h.align === "start" && !h.from && (
            <p className="hint warmup-note">
              The verdicts leave out the first {warmup} s of the tests (a warm-up: seconds whose median is over 1.5× the
              steady one); the whole-window figures include them.{" "}
              <button type="button" className="link" onClick={() => setH({ ...h, from: String(warmup) })}>
                Compare from {warmup} s
              </button>
            </p>
          )}
          {data.by_load && (
            <p className="hint">
              Ramps are compared in bands of responses per second that every compared test covered: adding or removing
              a test changes the bands, and so the verdicts of the quantiles-by-load chart.
            </p>
          )}
          <div className="charts">
            {Object.entries(data.figures).map(([name, figure]) => (
              <section className="card chart-box" key={name} aria-label={FIGURE_TITLES[name] ?? name}>
                <h2 className={figure.layout.title ? "sr-only" : undefined}>{FIGURE_TITLES[name] ?? name}</h2>
                <PlotlyFigure figure={figure} name={FIGURE_TITLES[name] ?? name} height={380} />
              </section>
            ))}
          </div>
        </>
      )}
    </main>
  );
}
