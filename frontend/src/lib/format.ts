/** Display formatters. Times arrive as UTC unix seconds and are shown in the reader's choice of zone (timeZone.ts). */
import { isUtc } from "./timeZone";

/** A quantile in ms as Overload showed it: three decimals. */
export function formatMs(value: number | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return "—";
  return value.toFixed(3);
}

/** Overload's compare cell: `1715.000 (+650.000)`; the first test's column has no difference. */
export function formatMsWithDiff(value: number | null | undefined, diff: number | null | undefined): string {
  const base = formatMs(value);
  if (diff === null || diff === undefined || !Number.isFinite(diff) || base === "—") return base;
  const sign = diff > 0 ? "+" : diff < 0 ? "−" : "+";
  return `${base} (${sign}${Math.abs(diff).toFixed(3)})`;
}

/** A share as a percentage with up to two decimals, e.g. 0.99512 → "99.51 %". */
export function formatPercent(share: number | null | undefined, digits = 2): string {
  if (share === null || share === undefined || !Number.isFinite(share)) return "—";
  const pct = share * 100;
  // Tiny non-zero shares must not read as 0: errors are what people look for.
  if (pct > 0 && pct < 10 ** -digits) return `<${(10 ** -digits).toFixed(digits)} %`;
  return `${pct.toFixed(digits)} %`;
}

/** Integers with thin-space thousands separators; fractions to at most one decimal. */
export function formatCount(value: number | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return "—";
  const rounded = Math.abs(value) >= 100 || Number.isInteger(value) ? Math.round(value) : Math.round(value * 10) / 10;
  const [int, frac] = String(Math.abs(rounded)).split(".");
  const grouped = (int ?? "0").replace(/\B(?=(\d{3})+(?!\d))/g, "\u2009");
  return `${rounded < 0 ? "-" : ""}${grouped}${frac ? "." + frac : ""}`;
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

/** Net code names, as the tank's tables showed them next to the number. */
const NET_CODES: Record<string, string> = {
  "0": "OK",
  "4": "Interrupted system call",
  "11": "Resource temporarily unavailable",
  "32": "Broken pipe",
  "71": "Protocol error",
  "97": "Address family not supported",
  "99": "Cannot assign requested address",
  "100": "Network is down",
  "101": "Network is unreachable",
  "103": "Software caused connection abort",
  "104": "Connection reset by peer",
  "110": "Connection timed out",
  "111": "Connection refused",
  "113": "No route to host",
  "777": "Discarded (never sent)",
  "999": "Unknown error",
};

export function netCodeName(code: string): string {
  return NET_CODES[code] ?? "";
}

/** Share of 2xx responses and of network errors in a code table. */
export function codeShares(
  count: number,
  http: Record<string, number>,
  net: Record<string, number>,
): { ok2xx: number | null; netErrors: number | null } {
  if (!count) return { ok2xx: null, netErrors: null };
  const ok = Object.entries(http)
    .filter(([code]) => code.startsWith("2") && code.length === 3)
    .reduce((sum, [, n]) => sum + n, 0);
  const bad = Object.entries(net)
    .filter(([code]) => code !== "0")
    .reduce((sum, [, n]) => sum + n, 0);
  return { ok2xx: ok / count, netErrors: bad / count };
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
