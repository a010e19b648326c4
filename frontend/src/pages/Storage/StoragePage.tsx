/**
 * The Storage page (staff): what the stored tests take on disk (ClickHouse's system.parts), per table and for the
 * largest tests, where it is going at the current rate, the quota, the retention policy and its jobs' progress,
 * with a button to run retention now. Everything shown is the API's (GET /api/v1/storage, /api/v1/retention/jobs).
 */
import { useState } from "react";
import { getRetentionJobs, getStorage, startRetentionJob } from "../../api/endpoints";
import type { RetentionJob, RetentionJobs, StorageAnswer } from "../../api/types";
import { ColumnHeads } from "../../components/ColumnHeads";
import { Empty, ErrorBox, Loading } from "../../components/States";
import { queryClient, useApi } from "../../hooks/useApi";
import { formatBytes, formatCount, formatIso, formatPercent } from "../../lib/format";
import "./storage.css";

const TABLE_NAMES: Record<string, string> = {
  raw: "Raw samples",
  aggregates: "Per-second aggregates",
  monitoring: "Monitoring",
};

function days(value: number | null | undefined): string {
  return value ? `${value} days` : "kept forever";
}

function Tile({ label, value, hint }: { label: string; value: string; hint?: string }) {
  return (
    <div className="chip" data-tile={label}>
      <span className="chip-value">{value}</span>
      <span className="chip-label">{label}</span>
      {hint && <span className="tile-hint hint">{hint}</span>}
    </div>
  );
}

function QuotaBar({ storage }: { storage: StorageAnswer }) {
  const { limit_bytes: limit, used_share: share, name } = storage.quota;
  if (!limit) return <p className="hint">No storage quota (TANKODROM_QUOTA_BYTES is 0): uploads are never refused.</p>;
  const pct = Math.min(100, (share ?? 0) * 100);
  return (
    <div className="quota" data-quota-share={share ?? 0}>
      <p>
        {name.charAt(0).toUpperCase() + name.slice(1)}: <strong>{formatBytes(storage.total_bytes)}</strong> of {formatBytes(limit)} used (
        {formatPercent(share)}){(share ?? 0) >= 1 && " — new uploads and tank streams are refused (507)"}
      </p>
      <div className="quota-bar" role="meter" aria-valuemin={0} aria-valuemax={100} aria-valuenow={Math.round(pct)}>
        <span style={{ width: `${pct}%` }} className={(share ?? 0) >= 0.9 ? "full" : ""} />
      </div>
    </div>
  );
}

function jobLine(job: RetentionJob): string {
  const freed = job.bytes_freed !== null && job.bytes_freed !== undefined ? `, ${formatBytes(job.bytes_freed)} freed` : "";
  const when = formatIso(job.finished_at ?? job.started_at ?? job.created_at);
  return (
    `#${job.id} ${job.status}: ${formatCount(job.tests_done)} of ${formatCount(job.tests_total)} tests ` +
    `(${formatCount(job.raw_expired)} raw, ${formatCount(job.aggregates_expired)} aggregates)${freed} · ${when}`
  );
}

function Retention({ jobs, onStarted }: { jobs: RetentionJobs; onStarted: () => void }) {
  const [message, setMessage] = useState<string | null>(null);
  const active = jobs.jobs.find((j) => j.status === "queued" || j.status === "running");
  const start = () => {
    startRetentionJob().then(
      (job) => {
        setMessage(job ? `Retention job #${job.id} queued.` : "Queued.");
        onStarted();
      },
      (e: Error) => setMessage(e.message),
    );
  };
  return (
    <section className="card" aria-labelledby="retention-title">
      <h2 id="retention-title">Retention</h2>
      <p>
        Raw samples: <strong>{days(jobs.policy.raw_days)}</strong> · per-second aggregates and monitoring:{" "}
        <strong>{days(jobs.policy.aggregates_days)}</strong> after a test was created. Starred tests and baselines
        (current and past) are never expired; the test, its figures, notes and tags always stay.
      </p>
      {active && (
        <div className="job-progress" data-job={active.id}>
          <progress max={1} value={active.progress} aria-label={`Retention job #${active.id}`} />
          <span>{jobLine(active)}</span>
        </div>
      )}
      <p>
        <button type="button" onClick={start} disabled={Boolean(active)}>
          Run retention now
        </button>{" "}
        {message && (
          <span className="hint" role="status">
            {message}
          </span>
        )}
      </p>
      {jobs.jobs.length > 0 ? (
        <ul className="jobs" aria-label="Recent retention jobs">
          {jobs.jobs.slice(0, 5).map((job) => (
            <li key={job.id} data-job-status={job.status}>
              {jobLine(job)}
              {job.error && <span className="hint"> — {job.error}</span>}
            </li>
          ))}
        </ul>
      ) : (
        <p className="hint">No retention job has run yet.</p>
      )}
    </section>
  );
}

export function StoragePage() {
  const storage = useApi(["storage"], (signal) => getStorage(signal));
  const jobs = useApi(["retention-jobs"], (signal) => getRetentionJobs(signal), {
    // While a job runs its progress is polled; then the storage figures are asked again.
    refetchInterval: (data) => (data?.jobs.some((j) => j.status === "queued" || j.status === "running") ? 2000 : false),
  });
  const refresh = () => void queryClient.invalidateQueries({ queryKey: ["retention-jobs"] });
  return (
    <main className="page storage" data-page="storage">
      <h1>Storage</h1>
      {storage.error ? (
        <ErrorBox error={storage.error} what="the storage figures" />
      ) : !storage.data ? (
        <Loading what="the storage figures" />
      ) : (
        <StorageFigures storage={storage.data} />
      )}
      {jobs.data && <Retention jobs={jobs.data} onStarted={refresh} />}
      {jobs.error && <ErrorBox error={jobs.error} what="the retention jobs" />}
    </main>
  );
}

function StorageFigures({ storage }: { storage: StorageAnswer }) {
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
