/** A `processing` test: how far its latest upload got (/uploads/), and the bad lines met so far. */
import { getUploads } from "../../api/endpoints";
import { testKey, useApi } from "../../hooks/useApi";
import { formatCount, formatPercent } from "../../lib/format";

export function ProgressPanel({ testId, testError }: { testId: number; testError: string }) {
  const uploads = useApi(testKey(testId, "uploads"), (signal) => getUploads(testId, signal));
  const latest = uploads.data?.[0];
  const share = latest?.size_bytes ? Math.min(1, latest.progress_bytes / latest.size_bytes) : null;
  // A refused or failed upload will not become figures by waiting: say why, and how to go on, instead of
  // promising a refresh that never comes.
  const refused = latest?.status === "failed" ? latest.error || "the upload failed" : testError || null;
  if (refused) {
    return (
      <section className="progress card failed" aria-label="Upload failed" data-upload-failed="1">
        <h2 role="alert">The upload was not processed: {refused}</h2>
        <p>
          Nothing of it is shown. Fix the file and send it again to this test (
          <code>PUT /api/v1/tests/{testId}/phout</code>), or delete the test.
        </p>
      </section>
    );
  }
  return (
    <section className="progress card" aria-label="Processing" aria-live="polite">
      <h2>{latest ? "Processing the uploaded file…" : "Waiting for the results"}</h2>
      {latest ? (
        <>
          <progress max={1} value={share ?? undefined} aria-label="Upload processed" />
          <p>
            {share !== null ? formatPercent(share, 1) : "starting"} · {formatCount(latest.progress_bytes)} of{" "}
            {formatCount(latest.size_bytes)} bytes · {formatCount(latest.lines_total)} lines
            {latest.lines_bad ? `, ${formatCount(latest.lines_bad)} bad` : ""} · {latest.status}
          </p>
        </>
      ) : uploads.error && uploads.error.status !== 404 ? (
        <p className="hint">Progress unavailable: {uploads.error.message}</p>
      ) : (
        <>
          <p className="hint">Waiting for the upload to start. A phout file (plain or gzip) goes in with:</p>
          <pre tabIndex={0}>
            curl -T phout.log -H "Authorization: Token $TOKEN" {window.location.origin}/api/v1/tests/{testId}/phout
          </pre>
        </>
      )}
      <p className="hint">The page refreshes by itself when the figures are ready.</p>
    </section>
  );
}
