import type { TestMeta } from "../../../api/types";
import { formatCount, formatIso, formatMs } from "../../../lib/format";

/** What retention deleted of this test, and so what its figures are read from now (backend/retention). */
export function RetentionNote({ test }: { test: TestMeta }) {
  if (test.aggregates_expired_at) {
    return (
      <p className="retention-note" role="note" data-retention="aggregates">
        Per-second data and monitoring expired on {formatIso(test.aggregates_expired_at).slice(0, 10)} (retention
        policy): the charts are empty; the test, its stored figures, notes and tags remain
        {test.q99_ms !== null && test.q99_ms !== undefined
          ? ` (q99 ${formatMs(test.q99_ms)} ms, max RPS ${formatCount(test.max_rps)}).`
          : "."}
      </p>
    );
  }
  if (test.raw_expired_at) {
    return (
      <p className="retention-note" role="note" data-retention="raw">
        Raw samples expired on {formatIso(test.raw_expired_at).slice(0, 10)} (retention policy): quantiles are
        estimated from the per-second histograms.
      </p>
    );
  }
  return null;
}
