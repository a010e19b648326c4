/**
 * The compare page's tables. Quantiles in Overload's form: the first test's cell `1065.000 ms`, the others
 * `1715.000 (+650.000)` and the whole test's difference in %; beside it the verdict and the figure it judges (the
 * typical change of a stretch of seconds, with its interval), or "not judged" and why. Codes: each test's share
 * of its requests with the count beside it, the share's difference judged. Every figure is the API's, rounded
 * here once (format.ts).
 */
import type { CompareAnswer } from "../api/types";
import { formatMs, formatMsWithDiff, formatPercent, formatSignedPercent } from "./format";

export type VerdictWord = "better" | "worse" | "same" | "not judged";

export interface CompareCell {
  text: string;
  /** The whole test's difference in % of the first test's value, e.g. "+12.3 %"; null for the first test. */
  pct: string | null;
  /** What the cell says of the test: null for the first test (the reference). */
  verdict: VerdictWord | null;
  /** The judged figure and its interval, e.g. "+55.2 % (+48.1 … +74.0 %)"; null where nothing was judged. */
  judged: string | null;
  /** Why the level was not judged; null where it was. */
  note: string | null;
}

export interface CompareRow {
  level: string;
  cells: CompareCell[];
}

/** The parts of the compare answer the quantiles table reads. */
export type CompareTables = Pick<
  CompareAnswer,
  "tests" | "quantiles_ms" | "diff_ms" | "diff_pct" | "change_pct" | "change_interval_pct" | "verdict" | "verdict_notes"
>;

function at<T>(table: Record<string, (T | null)[]> | undefined, level: string, i: number): T | null {
  return table?.[level]?.[i] ?? null;
}

/** Rows from the highest level down, as Overload's table read (99 %, 98 %, ... 50 %). */
export function quantileRows(answer: CompareTables): CompareRow[] {
  const levels = Object.keys(answer.quantiles_ms).sort((a, b) => Number(b) - Number(a));
  return levels.map((level) => ({
    level,
    cells: answer.tests.map((_, i): CompareCell => {
      const value = at(answer.quantiles_ms, level, i);
      if (i === 0) return { text: `${formatMs(value)}${value === null ? "" : " ms"}`, pct: null, verdict: null, judged: null, note: null };
      const change = at(answer.change_pct, level, i);
      const interval = at(answer.change_interval_pct, level, i);
      const verdict = at(answer.verdict, level, i);
      const note = verdict === null ? at(answer.verdict_notes, level, i) : null;
      return {
        text: formatMsWithDiff(value, at(answer.diff_ms, level, i)),
        pct: at(answer.diff_pct, level, i) === null ? null : formatSignedPercent(at(answer.diff_pct, level, i)),
        verdict: verdict ?? (value === null ? null : "not judged"),
        judged:
          change === null || interval === null
            ? null
            : `${formatSignedPercent(change)} (${formatSignedPercent(interval[0])} … ${formatSignedPercent(interval[1])})`,
        note,
      };
    }),
  }));
}

export interface CodeCell {
  count: number;
  /** The share of the test's requests, e.g. "1.34 %". */
  share: string;
  /** The share's difference from the first test in percentage points, e.g. "+1.34 pt"; null for the first. */
  diff: string | null;
  verdict: "better" | "worse" | "same" | null;
}

export interface CodeDiffRow {
  code: string;
  name: string;
  cells: CodeCell[];
}

/** The parts of the compare answer a code table reads. */
export type CompareCodes = Pick<
  CompareAnswer,
  "tests" | "http_codes" | "net_codes" | "code_meaning" | "code_share" | "code_share_diff" | "code_verdicts"
>;

/** A codes table (HTTP or net): each test's share and count of a code, the codes whose share moved most first. */
export function codeRows(answer: CompareCodes, kind: "http" | "net"): CodeDiffRow[] {
  const counts = kind === "http" ? answer.http_codes : answer.net_codes;
  const n = answer.tests.length;
  const moved = (code: string) =>
    Math.max(0, ...Array.from({ length: n }, (_, i) => Math.abs(at(answer.code_share_diff[kind], code, i) ?? 0)));
  return Object.keys(counts)
    .sort((a, b) => moved(b) - moved(a) || Number(a) - Number(b))
    .map((code) => ({
      code,
      name: answer.code_meaning[kind][code]?.name ?? "",
      cells: Array.from({ length: n }, (_, i): CodeCell => {
        const diff = at(answer.code_share_diff[kind], code, i);
        return {
          count: counts[code]?.[i] ?? 0,
          share: formatPercent(at(answer.code_share[kind], code, i)),
          diff: i === 0 || diff === null ? null : `${formatSignedPercent(diff * 100, 2).replace(" %", " pt")}`,
          verdict: i === 0 ? null : at(answer.code_verdicts[kind], code, i),
        };
      }),
    }));
}
