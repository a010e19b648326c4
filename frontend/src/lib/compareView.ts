/**
 * The compare page's view, kept in the URL hash with the report's names for the cases and the window:
 *   #align=start&tags=login,search&slider_start=10&slider_end=70
 * With align=start the window is seconds from each test's start (0 is a valid start), with align=absolute unix
 * seconds. Links written before this codec existed have exactly this form; a link without `align` aligns from
 * the start, and unknown or malformed values fall back to the defaults.
 */
import type { Params } from "../api/client";

export interface CompareView {
  align: "start" | "absolute";
  cases: string[];
  /** Whole seconds as typed (from each start, or unix); "" = the test's own bound. */
  from: string;
  to: string;
}

const SECONDS = /^\d+$/;

export function parseCompareView(hash: string): CompareView {
  const p = new URLSearchParams(hash.startsWith("#") ? hash.slice(1) : hash);
  const seconds = (name: string) => {
    const v = (p.get(name) ?? "").trim();
    return SECONDS.test(v) ? v : "";
  };
  return {
    align: p.get("align") === "absolute" ? "absolute" : "start",
    cases: [...new Set((p.get("tags") ?? "").split(",").filter((c) => c !== ""))],
    from: seconds("slider_start"),
    to: seconds("slider_end"),
  };
}

export function serializeCompareView(v: CompareView): string {
  return `align=${v.align}&tags=${v.cases.map(encodeURIComponent).join(",")}&slider_start=${v.from}&slider_end=${v.to}`;
}

/** The compare page's hash, for useUrlState. */
export const COMPARE_VIEW = { parse: parseCompareView, serialize: serializeCompareView };

/** The /compare API's parameters for these tests and this view. */
export function compareParams(ids: number[], v: CompareView): Params {
  const params: Params = [
    ["tests", ids.join(",")],
    ["align", v.align],
  ];
  if (v.from) params.push(["from", v.from]);
  if (v.to) params.push(["to", v.to]);
  for (const c of v.cases) params.push(["case", c]);
  return params;
}
