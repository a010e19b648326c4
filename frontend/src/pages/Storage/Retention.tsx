/** The retention policy, its jobs' progress and a button that runs retention now (POST /api/v1/retention/jobs). */
import { useState } from "react";
import { startRetentionJob } from "../../api/endpoints";
import type { RetentionJob, RetentionJobs } from "../../api/types";
import { formatBytes, formatCount, formatIso } from "../../lib/format";

function days(value: number | null | undefined): string {
  return value ? `${value} days` : "kept forever";
}

function jobLine(job: RetentionJob): string {
  const freed = job.bytes_freed !== null && job.bytes_freed !== undefined ? `, ${formatBytes(job.bytes_freed)} freed` : "";
  const when = formatIso(job.finished_at ?? job.started_at ?? job.created_at);
  return (
    `#${job.id} ${job.status}: ${formatCount(job.tests_done)} of ${formatCount(job.tests_total)} tests ` +
    `(${formatCount(job.raw_expired)} raw, ${formatCount(job.aggregates_expired)} aggregates)${freed} · ${when}`
  );
}

export function Retention({ jobs, onStarted }: { jobs: RetentionJobs; onStarted: () => void }) {
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
