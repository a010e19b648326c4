/**
 * A card holding one data table, the same on every page: its heading (a plain title, or a heading with a CSV
 * button), then the table scrolling sideways inside the card on a narrow screen, or what stands in its place.
 */
import type { ReactNode } from "react";
import { DataTable } from "./DataTable";

export function TableCard({
  label,
  head,
  table,
  className,
  instead,
  foot,
  children,
}: {
  /** The card's accessible name, and its heading unless `head` is given. */
  label: string;
  head?: ReactNode;
  /** The table's `data-table` name (tests and the CSV files use it). */
  table: string;
  className?: string;
  /** Shown instead of the table when set: why it is empty, that it loads, what went wrong. */
  instead?: ReactNode;
  /** Under the table (or the empty line): a note on how the figures were made. */
  foot?: ReactNode;
  children: ReactNode;
}) {
  return (
    <section className="card table-card" aria-label={label}>
      {head ?? <h2>{label}</h2>}
      {instead ? (
        instead
      ) : (
        <DataTable table={table} className={className}>
          {children}
        </DataTable>
      )}
      {foot}
    </section>
  );
}
