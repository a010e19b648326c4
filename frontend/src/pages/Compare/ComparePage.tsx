/**
 * `/compare/<a>/<b>[/<c>...]`: the comparison in one line per test, the cumulative-quantiles table in Overload's
 * form with each verdict beside the figure it judges (or "not judged" and why), the code shares side by side, and
 * overlaid charts aligned from each test's start. The window and cases are in the hash
 * (`#tags=&slider_start=&slider_end=&align=start`); with align=start they are seconds from each start.
 */
import { useEffect } from "react";
import { getCompare, getReport, getTest } from "../../api/endpoints";
import type { TestMeta } from "../../api/types";
import { PlotlyFigure, loadPlotly } from "../../components/charts/PlotlyFigure";
import { CasePicker } from "../../components/CasePicker";
import { Loaded } from "../../components/Loaded";
import { Empty } from "../../components/States";
import { TableCard } from "../../components/TableCard";
import { TestColumns } from "../../components/TestColumns";
import { useApi } from "../../hooks/useApi";
import { useUrlState } from "../../hooks/useUrlState";
import { quantileRows } from "../../lib/compareTable";
import { COMPARE_VIEW, compareParams } from "../../lib/compareView";
import { MAX_COMPARED } from "../../lib/listQuery";
import { BaselineLink } from "./BaselineLink";
import { CodeDiff } from "./CodeDiff";
import { Verdict } from "./Verdict";
import { WindowInputs } from "./WindowInputs";
import "./compare.css";

const FIGURE_TITLES: Record<string, string> = {
  quantiles: "Response time quantiles, aligned from each test's start",
  rps: "Responses per second",
  distribution: "Response time distributions",
  http_codes: "HTTP codes",
  net_codes: "Net codes",
  quantiles_by_load: "Quantiles by load",
};

export function ComparePage({ ids: asked }: { ids: number[] }) {
  const ids = asked.slice(0, MAX_COMPARED);
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
      {asked.length > MAX_COMPARED && (
        <div className="state empty" role="status">
          This page compares up to {MAX_COMPARED} tests: showing the first {MAX_COMPARED} of the {asked.length} in the
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
      <Loaded answer={answer} what="the comparison">
        {(data) => (
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
      </Loaded>
    </main>
  );
}
