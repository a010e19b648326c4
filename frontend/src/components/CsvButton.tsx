/** "CSV" next to a table: downloads the table's figures (raw numbers, not the formatted text). */
import { toCsv, type CsvCell } from "../lib/csv";
import { downloadText } from "../lib/download";

export function CsvButton({ name, header, rows }: { name: string; header: string[]; rows: CsvCell[][] }) {
  return (
    <button
      type="button"
      className="small csv"
      aria-label={`Download ${name} as CSV`}
      onClick={() => downloadText(`${name.replace(/\W+/g, "-").toLowerCase()}.csv`, toCsv(header, rows), "text/csv")}
    >
      CSV
    </button>
  );
}
