/**
 * Tables for the window (/tables): cumulative quantiles (rows 50..100 %, columns overall and each case), HTTP
 * codes, net codes and the per-case summary. The server computes quantiles over the whole window (exact where
 * raw samples exist), never as averages of per-second values, and never downsamples tables.
 */
import type { Params } from "../../../api/client";
import { getTables } from "../../../api/endpoints";
import { CsvButton } from "../../../components/CsvButton";
import { Empty, ErrorBox, Loading } from "../../../components/States";
import { TableCard } from "../../../components/TableCard";
import { testKey, useApi } from "../../../hooks/useApi";
import { CodeTable } from "./tables/CodeTable";
import { IntervalTable } from "./tables/IntervalTable";
import { TableHead } from "./tables/TableHead";
import { formatCount, formatMs, formatPercent } from "../../../lib/format";

// Overload's rows plus the tail levels people ask for.
const LEVELS = "50,75,80,85,90,95,98,99,99.5,99.9,100";

export function TablesTab({ testId, params }: { testId: number; params: Params }) {
  const query: Params = [...params, ["q", LEVELS]];
  const answer = useApi(testKey(testId, "tables", query), (signal) => getTables(testId, query, signal));
  if (answer.error) return <ErrorBox error={answer.error} what="the tables" />;
  const data = answer.data;
  if (!data) return <Loading what="tables" />;
  const overall = data.cases[0];
  if (!overall || overall.count === 0) return <Empty>No responses in this window.</Empty>;
  const columns = data.quantiles.columns;

  return (
    <div className="tables" aria-busy={answer.loading}>
      <TableCard
        label="Cumulative quantiles"
        table="quantiles"
        head={
          <TableHead
            title={
              <>
                Cumulative quantiles, ms{" "}
                <span className="hint">{data.exact ? "exact, from raw samples" : "from per-second histograms (tank stream, Locust, or raw samples expired): not exact"}</span>
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
        }
      >
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
      </TableCard>
      <div className="two-col">
        <IntervalTable testId={testId} rows={data.intervals ?? []} />
        <div>
          <CodeTable title="HTTP codes" kind="http_codes" rows={data.http_codes} testId={testId} />
          <CodeTable title="Net codes" kind="net_codes" rows={data.net_codes} testId={testId} />
        </div>
      </div>
      <TableCard
        label="Cases"
        table="cases"
        head={
          <TableHead
            title="Per case"
            csv={
              <CsvButton
                label="Per case"
                file={`test-${testId}-cases`}
                header={["case", "responses", "mean_rps", "max_rps", "mean_ms", "failed", "http_errors", "net_errors"]}
                rows={data.cases.map((c, i) => [
                  i === 0 ? "all requests" : c.case,
                  c.count,
                  c.rps_mean,
                  c.rps_max,
                  c.mean_ms,
                  c.outcomes.failed,
                  c.outcomes.http_errors,
                  c.outcomes.net_errors,
                ])}
              />
            }
          />
        }
      >
        <thead>
          <tr>
            <th scope="col">Case</th>
            {["Responses", "Mean RPS", "Max RPS (5 s)", "Mean time, ms", "Errors", "HTTP errors", "Net errors"].map((c) => (
              <th scope="col" className="num" key={c}>
                {c}
              </th>
            ))}
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
              {(["failed", "http_errors", "net_errors"] as const).map((name) => (
                <td className="num" key={name} data-outcome={name}>
                  {formatCount(c.outcomes[name])}{" "}
                  <span className="hint">({formatPercent(c.outcomes[`${name}_share`])})</span>
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </TableCard>
    </div>
  );
}
