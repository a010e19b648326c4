/** "CSV" next to a table: downloads the table's figures (raw numbers, not the formatted text). */
import { toCsv, type CsvCell } from "../lib/csv";
import { downloadText } from "../lib/download";

export function CsvButton({
  label,
  file,
  header,
  rows,
}: {
  /** The table's title, for the button's accessible name. */
  label: string;
  /** The file name without extension. */
  file: string;
  header: string[];
  rows: CsvCell[][];
}) {
  return (
    <button
      type="button"
      className="small csv"
      aria-label={`Download ${label} as CSV`}
      onClick={() => downloadText(`${file.replace(/\W+/g, "-").toLowerCase()}.csv`, toCsv(header, rows), "text/csv")}
    >
      CSV
    </button>
  );
}
