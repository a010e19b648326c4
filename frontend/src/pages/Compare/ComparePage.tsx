/**
 * `/compare/<a>/<b>[/<c>...]`: overlaid charts aligned from each test's start, the cumulative-quantiles table
 * in Overload's form with the compare API's verdicts, and the code differences. The window and cases are in
 * the hash (`#tags=&slider_start=&slider_end=&align=start`); with align=start they are seconds from each start.
 */
import { useEffect, useState } from "react";
import { getCompare, getReport, getTest } from "../../api/endpoints";
import { getBaseline } from "../../api/regressions";
import type { TestMeta } from "../../api/types";
import { PlotlyFigure, loadPlotly } from "../../components/charts/PlotlyFigure";
import { CasePicker } from "../../components/CasePicker";
import { Empty, ErrorBox, Loading } from "../../components/States";
import { TableCard, TestColumns } from "../../components/TableCard";
import { componentKey, useApi } from "../../hooks/useApi";
import { useUrlState } from "../../hooks/useUrlState";
import { codeRows, quantileRows } from "../../lib/compareTable";
import { COMPARE_VIEW, compareParams } from "../../lib/compareView";
import { formatCount, netCodeName } from "../../lib/format";
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

// More of a good code is good, more of a bad one is bad: the colour says which, not the sign.
const httpOk = (code: string) => /^[23]\d\d$/.test(code);
const netOk = (code: string) => code === "0";

function Verdict({ verdict }: { verdict: string | null }) {
  if (!verdict) return null;
  return <span className={`verdict verdict-${verdict}`}>{verdict}</span>;
}

function CodeDiff({
  title,
  codes,
  tests,
  names,
  isOk,
}: {
  title: string;
  codes: Record<string, number[]> | undefined;
  tests: number[];
  names?: (code: string) => string;
  isOk: (code: string) => boolean;
}) {
  const rows = codeRows(codes, tests.length);
  return (
    <TableCard label={title} table={title} instead={rows.length === 0 && <Empty>No codes.</Empty>}>
      <TestColumns first={<th scope="col">Code</th>} tests={tests} />
      <tbody>
        {rows.map((r) => (
          <tr key={r.code}>
            <th scope="row">
              {r.code}
              {names && names(r.code) ? <span className="hint"> {names(r.code)}</span> : null}
            </th>
            {r.counts.map((c, i) => (
              <td className="num" key={tests[i]}>
                {formatCount(c)}
                {i > 0 && r.diffs[i] !== 0 && (
                  <span className={(r.diffs[i] ?? 0) > 0 === isOk(r.code) ? "diff good" : "diff bad"}>
                    {" "}
                    ({(r.diffs[i] ?? 0) > 0 ? "+" : "−"}
                    {formatCount(Math.abs(r.diffs[i] ?? 0))})
                  </span>
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

/** Links the component's baseline when the compared tests share a component and the baseline is not among them. */
function BaselineLink({ ids, component }: { ids: number[]; component: string }) {
  const baseline = useApi(component ? componentKey(component, "baseline") : null, (signal) => getBaseline(component, signal));
  const b = baseline.data?.baseline;
  if (!b) return null;
  if (ids.includes(b.id)) {
    return (
      <p className="hint baseline-note">
        #{b.id} is the baseline of <a href={`/component/${encodeURIComponent(component)}`}>{component}</a>.
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
  const components = [...new Set((metas.data ?? []).map((m) => m?.component ?? ""))];
  const shared = components.length === 1 ? (components[0] ?? "") : "";

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
        {shared && <BaselineLink ids={tests} component={shared} />}
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
          <TableCard
            label="Cumulative quantiles"
            head={<h2>Cumulative quantiles, ms</h2>}
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
                    <td className={`num${c.verdict ? ` cell-${c.verdict}` : ""}`} key={tests[i]}>
                      <span className="value">{c.text}</span>
                      {c.pct && <span className="pct"> {c.pct}</span>} <Verdict verdict={c.verdict} />
                      {c.interval && (
                        <div className="hint interval" title="interval of the difference">
                          Δ in {c.interval}
                        </div>
                      )}
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </TableCard>
          <div className="two-col">
            <CodeDiff title="HTTP codes" codes={data.http_codes} tests={tests} isOk={httpOk} />
            <CodeDiff title="Net codes" codes={data.net_codes} tests={tests} names={netCodeName} isOk={netOk} />
          </div>
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
