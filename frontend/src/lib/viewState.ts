/**
 * The report's view state, kept in the URL hash so that a link reproduces the view.
 *
 * Overload kept the same state in the hash with these names:
 *   #tab=test_data&tags=&plot_groups=main&machines=&metrics=&slider_start=1606174457&slider_end=1606174789&compress_ratio=1
 * Links of that form are parsed as they are; the state is written back with the same names (in Overload's order),
 * plus `log` for the distribution's log scale, so old and new links look alike.
 */
import { formatClock } from "./format";

/** The report's tabs, each named as the hash names it, with its label; in Overload's order, which TABS keeps. */
export const TAB_LABELS = {
  test_data: "Overview",
  extended: "Extended analysis",
  distributions: "Distributions",
  tables: "Tables",
  monitoring: "Monitoring",
  config: "Config",
} as const satisfies Record<string, string>;
export type Tab = keyof typeof TAB_LABELS;
export const TABS = Object.keys(TAB_LABELS) as Tab[];

// Other spellings seen in old links and bookmarks, mapped to our tabs.
const TAB_ALIASES: Record<string, Tab> = {
  overview: "test_data",
  main: "test_data",
  ext_data: "extended",
  extended_analysis: "extended",
  ext_analysis: "extended",
  analysis: "extended",
  distribution: "distributions",
  distr: "distributions",
  table: "tables",
  monitor: "monitoring",
  monitoring_data: "monitoring",
  configs: "config",
  configuration: "config",
  config_info: "config",
};

export interface ViewState {
  tab: Tab;
  /** Selected cases (Overload's `tags`); empty = all requests. */
  cases: string[];
  /** Unix seconds, response second; null = the test's own bound. */
  from: number | null;
  to: number | null;
  /** Seconds per chart point; null = let the server choose ("auto"). */
  compressRatio: number | null;
  /** Overload's monitoring filters, kept so a link round-trips. */
  plotGroups: string;
  machines: string[];
  metrics: string[];
  /** Log scale on the distribution chart. */
  log: boolean;
}

export const DEFAULT_VIEW: ViewState = {
  tab: "test_data",
  cases: [],
  from: null,
  to: null,
  compressRatio: null,
  plotGroups: "main",
  machines: [],
  metrics: [],
  log: false,
};

function parseList(value: string | null): string[] {
  if (!value) return [];
  return value
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
}

function parseUnixSeconds(value: string | null): number | null {
  if (value === null || value.trim() === "") return null;
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) return null;
  // Some tools wrote milliseconds; a unix time in seconds stays below 1e11 until the year 5138.
  return Math.floor(n >= 1e11 ? n / 1000 : n);
}

export function parseTab(value: string | null): Tab {
  if (!value) return "test_data";
  const v = value.trim().toLowerCase();
  if ((TABS as readonly string[]).includes(v)) return v as Tab;
  return TAB_ALIASES[v] ?? "test_data";
}

/** Parses a location hash (with or without the leading '#'). Unknown or malformed values fall back to defaults. */
export function parseViewState(hash: string): ViewState {
  const params = new URLSearchParams(hash.startsWith("#") ? hash.slice(1) : hash);
  let from = parseUnixSeconds(params.get("slider_start") ?? params.get("from"));
  let to = parseUnixSeconds(params.get("slider_end") ?? params.get("to"));
  if (from !== null && to !== null && from > to) [from, to] = [to, from];
  const ratioRaw = params.get("compress_ratio");
  const ratio = ratioRaw === null || ratioRaw === "" || ratioRaw === "auto" ? NaN : Number(ratioRaw);
  const tags = params.getAll("tags").flatMap(parseList);
  const cases = params.getAll("case").flatMap(parseList);
  return {
    tab: parseTab(params.get("tab")),
    cases: [...new Set([...tags, ...cases])],
    from,
    to,
    compressRatio: Number.isInteger(ratio) && ratio >= 1 ? ratio : null,
    plotGroups: params.get("plot_groups") || DEFAULT_VIEW.plotGroups,
    machines: parseList(params.get("machines")),
    metrics: parseList(params.get("metrics")),
    log: params.get("log") === "1",
  };
}

/** Writes the state with Overload's names and order, so the hash can be pasted where Overload links were. */
export function serializeViewState(state: ViewState): string {
  const parts: [string, string][] = [
    ["tab", state.tab],
    ["tags", state.cases.join(",")],
    ["plot_groups", state.plotGroups],
    ["machines", state.machines.join(",")],
    ["metrics", state.metrics.join(",")],
    ["slider_start", state.from === null ? "" : String(state.from)],
    ["slider_end", state.to === null ? "" : String(state.to)],
    ["compress_ratio", state.compressRatio === null ? "" : String(state.compressRatio)],
  ];
  if (state.log) parts.push(["log", "1"]);
  // Commas stay readable (Overload's tag lists used them); everything else is encoded.
  return parts.map(([k, v]) => `${k}=${encodeURIComponent(v).replace(/%2C/g, ",")}`).join("&");
}

/** The report's hash, for useUrlState. */
export const REPORT_VIEW = { parse: parseViewState, serialize: serializeViewState };

/** The window and case parameters every report API call takes, from the view state. */
export function windowParams(state: Pick<ViewState, "cases" | "from" | "to">): [string, string][] {
  const out: [string, string][] = [];
  if (state.from !== null) out.push(["from", String(state.from)]);
  // The API's window is [from, to): the slider's end second is included, as Overload's slider was.
  if (state.to !== null) out.push(["to", String(state.to + 1)]);
  for (const c of state.cases) out.push(["case", c]);
  return out;
}

/**
 * What the window and cases cover, in words: "whole test", "12:00:05–12:01:10", "case login",
 * "12:00:05–12:01:10, cases login, search". An open end of the window is the test's own bound.
 */
export function selectionLabel(
  state: Pick<ViewState, "cases" | "from" | "to">,
  bounds: { first: number; last: number } | null,
): string {
  const parts: string[] = [];
  if (state.from !== null || state.to !== null) {
    const from = state.from ?? bounds?.first ?? null;
    const to = state.to ?? bounds?.last ?? null;
    parts.push(`${formatClock(from)}–${formatClock(to)}`);
  }
  if (state.cases.length > 0) parts.push(`${state.cases.length > 1 ? "cases" : "case"} ${state.cases.join(", ")}`);
  return parts.length > 0 ? parts.join(", ") : "whole test";
}
