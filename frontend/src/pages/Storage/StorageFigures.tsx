/** What the stored tests take: the totals, the quota, per table, the projection and the largest tests. */
import type { StorageAnswer } from "../../api/types";
import { ColumnHeads } from "../../components/ColumnHeads";
import { Empty } from "../../components/States";
import { formatBytes, formatCount, formatIso } from "../../lib/format";
import { QuotaBar } from "./QuotaBar";
import { Tile } from "./Tile";

const TABLE_NAMES: Record<string, string> = {
  raw: "Raw samples",
  aggregates: "Per-second aggregates",
  monitoring: "Monitoring",
};

export function StorageFigures({ storage }: { storage: StorageAnswer }) {
  const year = storage.projected.find((p) => p.days === 365);
  return (
    <>
      <div className="chips" role="group" aria-label="Storage in all">
        <Tile label="on disk" value={formatBytes(storage.total_bytes)} />
        <Tile label="tests with rows" value={formatCount(storage.tests_with_rows)} />
        <Tile
          label="per day"
          value={formatBytes(storage.rate.bytes_per_day)}
          hint={`tests of the last ${storage.rate.window_days} days`}
        />
        {year && <Tile label="in a year" value={formatBytes(year.bytes_on_disk)} hint="at this rate, before retention" />}
      </div>
      <QuotaBar storage={storage} />
      <div className="storage-grid">
        <section className="card" aria-labelledby="tables-title">
          <h2 id="tables-title">Tables</h2>
          <table className="num-table">
            <ColumnHeads
              columns={["Table", { label: "Rows", num: true }, { label: "On disk", num: true }, { label: "Bytes/row", num: true }]}
            />
            <tbody>
              {storage.tables.map((t) => (
                <tr key={t.table} data-table={t.table}>
                  <td>{TABLE_NAMES[t.table] ?? t.table}</td>
                  <td className="num">{formatCount(t.rows)}</td>
                  <td className="num">{formatBytes(t.bytes_on_disk)}</td>
                  <td className="num">{t.rows ? (t.bytes_on_disk / t.rows).toFixed(1) : "—"}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
        <section className="card" aria-labelledby="projection-title">
          <h2 id="projection-title">Projection</h2>
          <table className="num-table">
            <ColumnHeads columns={["In", { label: "On disk", num: true }]} />
            <tbody>
              {storage.projected.map((p) => (
                <tr key={p.days}>
                  <td>{p.days} days</td>
                  <td className="num">{formatBytes(p.bytes_on_disk)}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <p className="hint">
            Today&apos;s bytes plus {formatBytes(storage.rate.bytes_per_day)} a day, what the tests of the last{" "}
            {storage.rate.window_days} days took; retention then deletes what its policy says.
          </p>
        </section>
      </div>
      <section className="card" aria-labelledby="largest-title">
        <h2 id="largest-title">Largest tests</h2>
        {storage.largest.length === 0 ? (
          <Empty>No test has rows stored.</Empty>
        ) : (
          <div className="scroll-x">
            <table className="num-table largest">
              <thead>
                <tr>
                  <th>Test</th>
                  <th className="wide-only">Component</th>
                  <th className="wide-only">Created</th>
                  <th className="num">Raw rows</th>
                  <th className="num wide-only">Per-second rows</th>
                  <th className="num">On disk</th>
                </tr>
              </thead>
              <tbody>
                {storage.largest.map((t) => (
                  <tr key={t.test} data-test={t.test}>
                    <td>
                      <a href={`/${t.test}`}>#{t.test}</a> {t.name}
                    </td>
                    <td className="wide-only">{t.component}</td>
                    <td className="wide-only nowrap">{formatIso(t.created_at).slice(0, 10)}</td>
                    <td className="num">{formatCount(t.rows.raw)}</td>
                    <td className="num wide-only">{formatCount(t.rows.aggregates)}</td>
                    <td className="num">{formatBytes(t.bytes_on_disk)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        <p className="hint">A test&apos;s bytes are its share of each table by rows (parts hold many tests).</p>
      </section>
    </>
  );
}
