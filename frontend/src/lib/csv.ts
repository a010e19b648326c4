/** Tables as CSV (RFC 4180: fields with a comma, quote or line break are quoted, quotes doubled). */

export type CsvCell = string | number | null | undefined;

function field(value: CsvCell): string {
  if (value === null || value === undefined) return "";
  const text = typeof value === "number" ? (Number.isFinite(value) ? String(value) : "") : value;
  // A leading =, +, - or @ would be run as a formula by spreadsheets: prefixed with a quote, as OWASP advises.
  const safe = typeof value === "string" && /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

export function toCsv(header: string[], rows: CsvCell[][]): string {
  return [header, ...rows].map((row) => row.map(field).join(",")).join("\r\n") + "\r\n";
}
