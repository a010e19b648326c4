/**
 * Display formatters: every number a page shows is rounded here, once, from the full precision the API sends.
 * The server's own sentences (findings, the chat preview, the compare summary) follow the same rules
 * (analytics/definitions.py, format_*): both test suites hold them to analytics/tests/fixtures/format_cases.json.
 * Times arrive as UTC unix seconds and are shown in the reader's choice of zone (timeZone.ts).
 */
import { isUtc } from "./timeZone";

type Num = number | null | undefined;

function missing(value: Num): value is null | undefined {
  return value === null || value === undefined || !Number.isFinite(value);
}

/** `value` with `digits` decimals, halves away from zero (toFixed's rule); a negative that rounds to zero reads 0. */
export function formatFixed(value: Num, digits: number): string {
  if (missing(value)) return "—";
  const text = Math.abs(value).toFixed(digits);
  return value < 0 && /[1-9]/.test(text) ? `-${text}` : text;
}

/** A quantile in ms as Overload showed it: three decimals. */
export function formatMs(value: Num): string {
  return formatFixed(value, 3);
}

/** Overload's compare cell: `1715.000 (+650.000)`; the first test's column has no difference. */
export function formatMsWithDiff(value: number | null | undefined, diff: number | null | undefined): string {
  const base = formatMs(value);
  if (diff === null || diff === undefined || !Number.isFinite(diff) || base === "—") return base;
  const magnitude = formatFixed(Math.abs(diff), 3);
  const sign = diff < 0 && /[1-9]/.test(magnitude) ? "−" : "+";
  return `${base} (${sign}${magnitude})`;
}

/** A share (0..1) as a percentage, e.g. 0.99512 → "99.51 %"; a tiny non-zero share never reads as 0. */
export function formatPercent(share: Num, digits = 2): string {
  if (missing(share)) return "—";
  const pct = share * 100;
  // Tiny non-zero shares must not read as 0: errors are what people look for.
  if (pct > 0 && pct < 10 ** -digits) return `<${formatFixed(10 ** -digits, digits)} %`;
  return `${formatFixed(pct, digits)} %`;
}

/** A change in % with its sign: "+12.3 %", "−4.0 %" (a true minus sign). */
export function formatSignedPercent(pct: Num, digits = 1): string {
  if (missing(pct)) return "—";
  const magnitude = formatFixed(Math.abs(pct), digits);
  return `${pct < 0 && /[1-9]/.test(magnitude) ? "−" : "+"}${magnitude} %`;
}

/** Whole numbers as they are, thousands apart by a thin space; a fraction below 100 to one decimal (2.5/s). */
export function formatCount(value: Num): string {
  if (missing(value)) return "—";
  let text = formatFixed(value, Math.abs(value) >= 100 || Number.isInteger(value) ? 0 : 1);
  if (text.endsWith(".0")) text = text.slice(0, -2);
  const negative = text.startsWith("-");
  const [int, frac] = (negative ? text.slice(1) : text).split(".");
  const grouped = (int ?? "0").replace(/\B(?=(\d{3})+(?!\d))/g, "\u2009");
  return `${negative ? "-" : ""}${grouped}${frac ? "." + frac : ""}`;
}

/** Bytes in binary units, three significant figures: `512 B`, `1.50 KiB`, `20.3 MiB`, `1.21 TiB`. */
export function formatBytes(value: Num): string {
  if (missing(value)) return "—";
  const units = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];
  let scaled = Math.abs(value);
  let unit = 0;
  while (scaled >= 1024 && unit < units.length - 1) {
    scaled /= 1024;
    unit += 1;
  }
  const digits = unit === 0 ? 0 : scaled >= 100 ? 0 : scaled >= 10 ? 1 : 2;
  return `${value < 0 ? "-" : ""}${formatFixed(scaled, digits)} ${units[unit]}`;
}

/** A duration in seconds as `1h 02m 03s`, `5m 00s` or `42s`. */
export function formatDuration(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined || !Number.isFinite(seconds) || seconds < 0) return "—";
  const s = Math.round(seconds);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = s % 60;
  const pad = (n: number) => String(n).padStart(2, "0");
  if (h > 0) return `${h}h ${pad(m)}m ${pad(sec)}s`;
  if (m > 0) return `${m}m ${pad(sec)}s`;
  return `${sec}s`;
}

function pad2(n: number): string {
  return String(n).padStart(2, "0");
}

/** Unix seconds as `YYYY-MM-DD HH:MM:SS` in local time, or UTC when `utc` (by default: the reader's choice). */
export function formatUnix(ts: number | null | undefined, utc = isUtc()): string {
  if (ts === null || ts === undefined || !Number.isFinite(ts)) return "—";
  const d = new Date(ts * 1000);
  const [y, mo, da, h, mi, s] = utc
    ? [d.getUTCFullYear(), d.getUTCMonth() + 1, d.getUTCDate(), d.getUTCHours(), d.getUTCMinutes(), d.getUTCSeconds()]
    : [d.getFullYear(), d.getMonth() + 1, d.getDate(), d.getHours(), d.getMinutes(), d.getSeconds()];
  return `${y}-${pad2(mo)}-${pad2(da)} ${pad2(h)}:${pad2(mi)}:${pad2(s)}`;
}

/** Only the clock part, for slider labels. */
export function formatClock(ts: number | null | undefined, utc = isUtc()): string {
  const full = formatUnix(ts, utc);
  return full === "—" ? full : full.slice(11);
}

/** An ISO timestamp (from the API) as local `YYYY-MM-DD HH:MM`. */
export function formatIso(iso: string | null | undefined): string {
  if (!iso) return "—";
  const t = Date.parse(iso);
  return Number.isNaN(t) ? iso : formatUnix(Math.floor(t / 1000)).slice(0, 16);
}

/** The tank's load scheme (a list of strings or of {type, ...} objects) as one readable line. */
export function formatLoadScheme(scheme: unknown): string {
  if (scheme === null || scheme === undefined) return "—";
  if (typeof scheme === "string") return scheme || "—";
  if (!Array.isArray(scheme) || scheme.length === 0) return "—";
  return scheme
    .map((step: unknown) => {
      if (typeof step === "string") return step;
      if (step && typeof step === "object") {
        const o = step as Record<string, unknown>;
        if (typeof o.step === "string") return o.step;
        if (typeof o.type === "string") {
          const args = Object.entries(o)
            .filter(([k]) => k !== "type")
            .map(([, v]) => String(v));
          return `${o.type}(${args.join(",")})`;
        }
        return JSON.stringify(o);
      }
      return String(step);
    })
    .join(" ");
}

/** Quantile level keys ("50", "99.9") sorted numerically, for table rows. */
export function sortLevels(levels: string[]): string[] {
  return [...levels].sort((a, b) => Number(a) - Number(b));
}

/** `YYYY-MM-DD HH:MM[:SS]` typed by a reader, in local time or UTC, to unix seconds; null if not a time. */
export function parseDateTime(text: string, utc = isUtc()): number | null {
  const m = text.trim().match(/^(\d{4})-(\d{2})-(\d{2})[ T](\d{1,2}):(\d{2})(?::(\d{2}))?$/);
  if (!m) return null;
  const [y, mo, d, h, mi, s] = m.slice(1).map((v) => Number(v ?? 0)) as [number, number, number, number, number, number];
  const ms = utc ? Date.UTC(y, mo - 1, d, h, mi, s) : new Date(y, mo - 1, d, h, mi, s).getTime();
  if (!Number.isFinite(ms) || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || s > 59) return null;
  return Math.floor(ms / 1000);
}
