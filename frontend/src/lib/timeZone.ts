/**
 * Local time or UTC for every time the pages show (tables, headers, chart axes). The choice is the reader's,
 * kept in localStorage so it holds across pages and visits; the default is the browser's local time.
 */

export type TimeZoneMode = "local" | "utc";

const KEY = "tankodrom.timezone";
const listeners = new Set<() => void>();

function stored(): TimeZoneMode {
  try {
    return globalThis.localStorage?.getItem(KEY) === "utc" ? "utc" : "local";
  } catch {
    return "local"; // storage disabled: the default
  }
}

let mode: TimeZoneMode = stored();

export function timeZoneMode(): TimeZoneMode {
  return mode;
}

export function isUtc(): boolean {
  return mode === "utc";
}

export function setTimeZoneMode(next: TimeZoneMode): void {
  mode = next;
  try {
    globalThis.localStorage?.setItem(KEY, next);
  } catch {
    // Not persisted; the choice still holds for this page.
  }
  for (const listener of listeners) listener();
}

export function subscribeTimeZone(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** The browser's offset from UTC at that moment, in ms (positive east of Greenwich; DST-aware). */
export function localOffsetMs(epochMs: number): number {
  return -new Date(epochMs).getTimezoneOffset() * 60_000;
}

/** "UTC+3", "UTC−5:30", "UTC" for the moment given. */
export function offsetLabel(epochMs: number): string {
  const minutes = localOffsetMs(epochMs) / 60_000;
  if (minutes === 0) return "UTC";
  const sign = minutes > 0 ? "+" : "−";
  const abs = Math.abs(minutes);
  const h = Math.floor(abs / 60);
  const m = abs % 60;
  return `UTC${sign}${h}${m ? `:${String(m).padStart(2, "0")}` : ""}`;
}

/**
 * A backend time figure (x in epoch ms, drawn by plotly as UTC wall time) moved to the browser's wall time:
 * every trace's x, the axis range and title, and the shapes and annotations placed on x.
 */
export function figureInLocalTime<T extends { data: Record<string, unknown>[]; layout?: Record<string, unknown> }>(
  figure: T,
): T {
  const xaxis = (figure.layout?.xaxis ?? {}) as Record<string, unknown>;
  if (xaxis.type !== "date") return figure;
  const shift = (v: unknown): unknown => (typeof v === "number" ? v + localOffsetMs(v) : v);
  const data = figure.data.map((trace) =>
    Array.isArray(trace.x) ? { ...trace, x: (trace.x as unknown[]).map(shift) } : trace,
  );
  const range = Array.isArray(xaxis.range) ? (xaxis.range as unknown[]).map(shift) : xaxis.range;
  const sample = typeof (xaxis.range as unknown[] | undefined)?.[0] === "number" ? Number((xaxis.range as unknown[])[0]) : Date.now();
  const title = { ...((xaxis.title as Record<string, unknown> | undefined) ?? {}), text: `time, local (${offsetLabel(sample)})` };
  const layout = { ...(figure.layout ?? {}), xaxis: { ...xaxis, range, title } };
  return { ...figure, data, layout };
}

/** An x value read back from a local-time axis (unix s as if UTC) to true unix seconds. */
export function localAxisToUnix(seconds: number): number {
  // The wall time w of a moment t is t + offset(t); offsets change by at most an hour, so one correction
  // from w's own offset lands on t except within the hour of a DST switch.
  return seconds - localOffsetMs(seconds * 1000 - localOffsetMs(seconds * 1000)) / 1000;
}
