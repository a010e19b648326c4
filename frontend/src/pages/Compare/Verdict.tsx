/** A comparison's verdict on one figure (better, worse, same, not judged), with its note as the tooltip. */
import type { VerdictWord } from "../../lib/compareTable";

export function Verdict({ verdict, note }: { verdict: VerdictWord | null; note?: string | null }) {
  if (!verdict) return null;
  const kind = verdict === "not judged" ? "unjudged" : verdict;
  return (
    <span className={`verdict verdict-${kind}`} title={note ?? undefined} data-verdict={kind}>
      {verdict}
    </span>
  );
}
