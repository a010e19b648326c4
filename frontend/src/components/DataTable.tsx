/** A data table that scrolls sideways inside its box on a narrow screen, the same on every page. */
import type { ReactNode } from "react";

export function DataTable({
  table,
  className,
  children,
}: {
  /** The table's `data-table` name (tests and the CSV files use it). */
  table?: string;
  className?: string;
  children: ReactNode;
}) {
  return (
    <div className="scroll-x">
      <table className={className ? `data ${className}` : "data"} data-table={table}>
        {children}
      </table>
    </div>
  );
}
