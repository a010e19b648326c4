/**
 * Tables for the window (/tables): cumulative quantiles (rows 50..100 %, columns overall and each case), HTTP
 * codes, net codes and the per-case summary. The server computes quantiles over the whole window (exact where
 * raw samples exist), never as averages of per-second values, and never downsamples tables.
 */
import type { Params } from "../../../api/client";
import { getTables } from "../../../api/endpoints";
import type { TablesAnswer } from "../../../api/types";
import { CsvButton } from "../../../components/CsvButton";
import { Empty, ErrorBox, Loading } from "../../../components/States";
import { useApi } from "../../../hooks/useApi";
import { formatCount, formatMs, formatPercent } from "../../../lib/format";

// Overload's rows plus the tail levels people ask for.
const LEVELS = "50,75,80,85,90,95,98,99,99.5,99.9,100";

function TableHead({ title, csv }: { title: React.ReactNode; csv: React.ReactNode }) {
  return (
    <div className="table-head">
      <h2>{title}</h2>
      {csv}
    </div>
  );
}

function CodeTable({
  title,
  rows,
  kind,
  testId,
}: {
  title: string;
  rows: { code: number; count: number; percent: number; name?: string }[];
  kind: string;
  testId: number;
}) {
  return (
    <section className="card table-card" aria-label={title}>
      <TableHead
        title={title}
        csv={
          <CsvButton
            label={title}
            file={`test-${testId}-${kind}`}
            header={["code", "meaning", "count", "percent"]}
            rows={rows.map((r) => [r.code, r.name ?? "", r.count, r.percent])}
          />
        }
      />
      {rows.length === 0 ? (
        <Empty>No responses in this window.</Empty>
      ) : (
        <div className="scroll-x">
        <table className="data" data-table={kind}>
          <thead>
            <tr>
              <th scope="col">Code</th>
              <th scope="col">Meaning</th>
              <th scope="col" className="num">
                Count
              </th>
              <th scope="col" className="num">
                %
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={r.code} data-code={r.code}>
                <th scope="row">{r.code}</th>
                <td className="meaning">{r.name ?? ""}</td>
                <td className="num" data-count={r.count}>
                  {formatCount(r.count)}
                </td>
                <td className="num">{r.percent.toFixed(2)} %</td>
              </tr>
            ))}
          </tbody>
        </table>
        </div>
      )}
    </section>
  );
}

function IntervalTable({ testId, rows }: { testId: number; rows: NonNullable<TablesAnswer["intervals"]> }) {
  const label = (r: { from_ms: number; to_ms: number }) => `${formatCount(r.from_ms)} – ${formatCount(r.to_ms)}`;
  return (
    <section className="card table-card" aria-label="Response time intervals">
      <TableHead
        title="Response time intervals, ms"
        csv={
          <CsvButton
            label="Response time intervals"
            file={`test-${testId}-intervals`}
            header={["from_ms", "to_ms", "count", "percent"]}
            rows={rows.map((r) => [r.from_ms, r.to_ms, r.count, r.percent])}
          />
        }
      />
      {rows.length === 0 ? (
        <Empty>No response times in this window.</Empty>
      ) : (
        <div className="scroll-x">
          <table className="data" data-table="intervals">
            <thead>
              <tr>
                <th scope="col">Interval, ms</th>
                <th scope="col" className="num">
                  Count
                </th>
                <th scope="col" className="num">
                  %
                </th>
              </tr>
            </thead>
            <tbody>
              {rows.map((r) => (
                <tr key={r.from_ms} data-interval={`${r.from_ms}-${r.to_ms}`}>
                  <th scope="row">{label(r)}</th>
                  <td className="num" data-count={r.count}>
                    {formatCount(r.count)}
                  </td>
                  <td className="num">{r.percent.toFixed(2)} %</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

export function TablesTab({ testId, params, refresh }: { testId: number; params: Params; refresh: number }) {
  const query: Params = [...params, ["q", LEVELS]];
  const key = `${testId}|${JSON.stringify(query)}|${refresh}`;
  const answer = useApi(key, (signal) => getTables(testId, query, signal));
  if (answer.error) return <ErrorBox error={answer.error} what="the tables" />;
  const data = answer.data;
  if (!data) return <Loading what="tables" />;
  const overall = data.cases[0];
  if (!overall || overall.count === 0) return <Empty>No responses in this window.</Empty>;
  const columns = data.quantiles.columns;

  return (
    <div className="tables" aria-busy={answer.loading}>
      <section className="card table-card" aria-label="Cumulative quantiles">
        <TableHead
          title={
            <>
              Cumulative quantiles, ms{" "}
              <span className="hint">{data.exact ? "exact, from raw samples" : "from per-second histograms (tank stream, Locust): not exact"}</span>
            </>
          }
          csv={
            <CsvButton
              label="Cumulative quantiles"
              file={`test-${testId}-quantiles`}
              header={["quantile", ...columns.map((c, i) => (i === 0 ? "all requests" : c))]}
              rows={data.quantiles.rows.map((r) => [r.level, ...r.values])}
            />
          }
        />
        <div className="scroll-x">
          <table className="data" data-table="quantiles">
            <thead>
              <tr>
                <th scope="col">Quantile</th>
                {columns.map((c, i) => (
                  <th scope="col" className="num" key={c}>
                    {i === 0 ? "All requests" : c}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {data.quantiles.rows.map((row) => (
                <tr key={row.level} data-level={row.level}>
                  <th scope="row">{row.level}%</th>
                  {row.values.map((v, i) => (
                    <td className="num" key={columns[i] ?? i} data-case={i === 0 ? "" : columns[i]}>
                      {formatMs(v)}
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </section>
      <div className="two-col">
        <IntervalTable testId={testId} rows={data.intervals ?? []} />
        <div>
          <CodeTable title="HTTP codes" kind="http_codes" rows={data.http_codes} testId={testId} />
          <CodeTable title="Net codes" kind="net_codes" rows={data.net_codes} testId={testId} />
        </div>
      </div>
      <section className="card table-card" aria-label="Cases">
        <TableHead
          title="Per case"
          csv={
            <CsvButton
              label="Per case"
              file={`test-${testId}-cases`}
              header={["case", "responses", "mean_rps", "max_rps", "mean_ms", "http_errors", "net_errors"]}
              rows={data.cases.map((c, i) => [
                i === 0 ? "all requests" : c.case,
                c.count,
                c.rps_mean,
                c.rps_max,
                c.mean_ms,
                c.http_errors,
                c.net_errors,
              ])}
            />
          }
        />
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
                  Mean time, ms
                </th>
                <th scope="col" className="num">
                  HTTP errors
                </th>
                <th scope="col" className="num">
                  Net errors
                </th>
              </tr>
            </thead>
            <tbody>
              {data.cases.map((c, i) => (
                <tr key={c.case} data-case={i === 0 ? "" : c.case}>
                  <th scope="row">{i === 0 ? "All requests" : c.case}</th>
                  <td className="num" data-count={c.count}>
                    {formatCount(c.count)}
                  </td>
                  <td className="num">{formatCount(c.rps_mean)}</td>
                  <td className="num">{formatCount(c.rps_max)}</td>
                  <td className="num">{formatMs(c.mean_ms)}</td>
                  <td className="num">
                    {formatCount(c.http_errors)}{" "}
                    <span className="hint">({formatPercent(c.count ? c.http_errors / c.count : null)})</span>
                  </td>
                  <td className="num">
                    {formatCount(c.net_errors)}{" "}
                    <span className="hint">({formatPercent(c.count ? c.net_errors / c.count : null)})</span>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </section>
    </div>
  );
}
