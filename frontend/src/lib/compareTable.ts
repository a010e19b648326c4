/**
 * The compare page's cumulative-quantiles table in Overload's form: the first test's cell `1065.000 ms`,
 * the others `1715.000 (+650.000)`, each with the compare API's verdict and interval where it has them.
 */
import type { CompareAnswer } from "../api/types";
import { formatMs, formatMsWithDiff } from "./format";

export interface CompareCell {
  text: string;
  /** The difference from the first test as a percent of its value, e.g. "+12.3 %"; null for the first test. */
  pct: string | null;
  verdict: string | null;
  interval: string | null;
}

/** `+12.3 %` / `−4.0 %` of the first test's value; null when there is nothing to divide by. */
export function percentOf(diff: number | null, base: number | null): string | null {
  if (diff === null || base === null || !Number.isFinite(diff) || !Number.isFinite(base) || base === 0) return null;
  const pct = (diff / base) * 100;
  const sign = pct > 0 ? "+" : pct < 0 ? "−" : "±";
  return `${sign}${Math.abs(pct).toFixed(1)} %`;
}

export interface CompareRow {
  level: string;
  cells: CompareCell[];
}

/** The parts of the compare answer the table reads. */
export type CompareTables = Pick<CompareAnswer, "tests" | "quantiles_ms" | "diff_ms" | "verdict" | "interval_ms">;

/** Rows from the highest level down, as Overload's table read (99 %, 98 %, ... 50 %). */
export function quantileRows(answer: CompareTables): CompareRow[] {
  const levels = Object.keys(answer.quantiles_ms).sort((a, b) => Number(b) - Number(a));
  return levels.map((level) => {
    const values = answer.quantiles_ms[level] ?? [];
    const diffs = answer.diff_ms[level] ?? [];
    const verdicts = answer.verdict[level] ?? [];
    const intervals = answer.interval_ms[level] ?? [];
    return {
      level,
      cells: answer.tests.map((_, i) => {
        const value = values[i] ?? null;
        const diff = diffs[i] ?? (i > 0 && value !== null && values[0] != null ? value - values[0] : null);
        const iv = intervals[i] ?? null;
        return {
          text: i === 0 ? `${formatMs(value)}${value === null ? "" : " ms"}` : formatMsWithDiff(value, diff),
          pct: i === 0 ? null : percentOf(diff, values[0] ?? null),
          verdict: i === 0 ? null : (verdicts[i] ?? null),
          interval: iv ? `${formatMs(iv[0])} … ${formatMs(iv[1])}` : null,
        };
      }),
    };
  });
}

export interface CodeDiffRow {
  code: string;
  counts: number[];
  /** Each test's count minus the first test's. */
  diffs: number[];
}

/** Code tables side by side, the codes that differ most first. */
export function codeRows(codes: Record<string, number[]> | undefined, n: number): CodeDiffRow[] {
  if (!codes) return [];
  return Object.entries(codes)
    .map(([code, raw]) => {
      const counts = Array.from({ length: n }, (_, i) => raw[i] ?? 0);
      const base = counts[0] ?? 0;
      return { code, counts, diffs: counts.map((c) => c - base) };
    })
    .sort((a, b) => {
      const spread = (r: CodeDiffRow) => Math.max(...r.diffs.map(Math.abs));
      return spread(b) - spread(a) || Number(a.code) - Number(b.code);
    });
}
