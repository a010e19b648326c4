import { getUploads } from "../../api/endpoints";
import { testKey, useApi } from "../../hooks/useApi";
import { formatCount } from "../../lib/format";

/**
 * The latest upload's bad lines (skipped, with their numbers) or its error: shown on a ready or failed test,
 * so a reader knows what the figures leave out and where to look in the file.
 */
export function UploadNotice({ testId }: { testId: number }) {
  const uploads = useApi(testKey(testId, "uploads"), (signal) => getUploads(testId, signal));
  const latest = uploads.data?.[0];
  if (!latest || (!latest.lines_bad && !latest.error)) return null;
  // An upload that did not fail may still carry a note (e.g. "same file as upload 1 … nothing ingested twice"):
  // that is information, not an error, and must not paint a ready test red.
  const failed = latest.status === "failed";
  const skipped = latest.lines_bad
    ? `${formatCount(latest.lines_bad)} of ${formatCount(latest.lines_total)} lines of the phout were skipped as malformed`
    : null;
  return (
    <section className={`card upload-notice ${failed ? "failed" : ""}`} aria-label="Upload problems">
      <h2>{failed ? `The upload failed: ${latest.error}` : (skipped ?? `Latest upload: ${latest.error}`)}</h2>
      {!failed && skipped && latest.error && <p className="hint">Latest upload: {latest.error}</p>}
      {latest.bad_examples.length > 0 && (
        <ul>
          {latest.bad_examples.slice(0, 5).map((e) => (
            <li key={e.line}>
              line {e.line}: {e.reason}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
