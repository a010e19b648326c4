/**
 * Tables for the window: cumulative quantiles (rows 50..100 %, columns the selection and each case), HTTP
 * codes, net codes and a per-case summary. Every figure is from /summary, which computes quantiles over the
 * whole window (exact where raw samples exist), never as averages of per-second values.
 */
import type { Params } from "../../../api/client";
import { getSummary } from "../../../api/endpoints";
import type { Summary } from "../../../api/types";
import { Empty, ErrorBox, Loading } from "../../../components/States";
import { useApi } from "../../../hooks/useApi";
import { codeShares, formatCount, formatMs, formatPercent, netCodeName, sortLevels } from "../../../lib/format";

const LEVELS = "50,75,80,85,90,95,98,99,99.5,99.9,100";

interface Column {
  key: string;
  label: string;
  summary: Summary;
}

async function loadColumns(testId: number, params: Params, cases: string[], signal: AbortSignal): Promise<Column[]> {
  const base = params.filter(([k]) => k !== "case");
  const selection: Params = [...params, ["q", LEVELS]];
  const jobs: Promise<Column>[] = [
    getSummary(testId, selection, signal).then((summary) => ({
      key: "",
      label: cases.length && params.some(([k]) => k === "case") ? "Selected cases" : "All requests",
      summary,
    })),
    ...cases.map((c) =>
      getSummary(testId, [...base, ["case", c], ["q", LEVELS]], signal).then((summary) => ({ key: c, label: c, summary })),
    ),
  ];
  return Promise.all(jobs);
}

function CodeTable({
  title,
  codes,
  total,
  names,
  kind,
}: {
  title: string;
  codes: Record<string, number>;
  total: number;
  names?: (code: string) => string;
  kind: string;
}) {
  const rows = Object.entries(codes).sort((a, b) => b[1] - a[1]);
  return (
    <section className="card table-card" aria-label={title}>
      <h2>{title}</h2>
      {rows.length === 0 ? (
        <Empty>No responses in this window.</Empty>
      ) : (
        <table className="data" data-table={kind}>
          <thead>
            <tr>
              <th scope="col">Code</th>
              {names && <th scope="col">Meaning</th>}
              <th scope="col" className="num">
                Count
              </th>
              <th scope="col" className="num">
                %
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.map(([code, n]) => (
              <tr key={code} data-code={code}>
                <th scope="row">{code}</th>
                {names && <td>{names(code)}</td>}
                <td className="num" data-count={n}>
                  {formatCount(n)}
                </td>
                <td className="num">{formatPercent(total ? n / total : null)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

export function TablesTab({
  testId,
  params,
  refresh,
  cases,
}: {
  testId: number;
  params: Params;
  refresh: number;
  /** Cases to give a column each: the selected ones, or all of the test's when none is selected. */
  cases: string[];
}) {
  const key = `${testId}|${JSON.stringify(params)}|${cases.join("\u0000")}|${refresh}`;
  const columns = useApi(key, (signal) => loadColumns(testId, params, cases, signal));
  if (columns.error) return <ErrorBox error={columns.error} what="the tables" />;
  const data = columns.data;
  if (!data) return <Loading what="tables" />;
  const [first] = data;
  if (!first || first.summary.count === 0) return <Empty>No responses in this window.</Empty>;
  const levels = sortLevels([...new Set(data.flatMap((c) => Object.keys(c.summary.quantiles_ms)))]);
  const total = first.summary.count;

  return (
    <div className="tables" aria-busy={columns.loading}>
      <section className="card table-card" aria-label="Cumulative quantiles">
        <h2>
          Cumulative quantiles, ms{" "}
          <span className="hint">{first.summary.exact ? "exact, from raw samples" : "from the tank's histograms"}</span>
        </h2>
        <div className="scroll-x">
          <table className="data" data-table="quantiles">
            <thead>
              <tr>
                <th scope="col">Quantile</th>
                {data.map((c) => (
                  <th scope="col" className="num" key={c.key}>
                    {c.label}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {levels.map((level) => (
                <tr key={level} data-level={level}>
                  <th scope="row">{level}%</th>
                  {data.map((c) => (
                    <td className="num" key={c.key} data-case={c.key}>
                      {formatMs(c.summary.quantiles_ms[level])}
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </section>
      <div className="two-col">
        <CodeTable title="HTTP codes" kind="http_codes" codes={first.summary.http_codes} total={total} />
        <CodeTable title="Net codes" kind="net_codes" codes={first.summary.net_codes} total={total} names={netCodeName} />
      </div>
      <section className="card table-card" aria-label="Cases">
        <h2>Per case</h2>
        <div className="scroll-x">
          <table className="data" data-table="cases">
            <thead>
              <tr>
                <th scope="col">Case</th>
                <th scope="col" className="num">
                  Responses
                </th>
                <th scope="col" className="num">
                  Mean RPS
                </th>
                <th scope="col" className="num">
                  Max RPS
                </th>
                <th scope="col" className="num">
                  2xx
                </th>
                <th scope="col" className="num">
                  Net errors
                </th>
                <th scope="col" className="num">
                  50%, ms
                </th>
                <th scope="col" className="num">
                  99%, ms
                </th>
              </tr>
            </thead>
            <tbody>
              {data.map((c) => {
                const shares = codeShares(c.summary.count, c.summary.http_codes, c.summary.net_codes);
                return (
                  <tr key={c.key} data-case={c.key}>
                    <th scope="row">{c.label}</th>
                    <td className="num" data-count={c.summary.count}>
                      {formatCount(c.summary.count)}
                    </td>
                    <td className="num">{formatCount(c.summary.rps.mean)}</td>
                    <td className="num">{formatCount(c.summary.rps.max)}</td>
                    <td className="num">{formatPercent(shares.ok2xx)}</td>
                    <td className="num">{formatPercent(shares.netErrors)}</td>
                    <td className="num">{formatMs(c.summary.quantiles_ms["50"])}</td>
                    <td className="num">{formatMs(c.summary.quantiles_ms["99"])}</td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      </section>
    </div>
  );
}
