/** A data table's header row: one column heading each, numeric ones aligned right, hidden ones for screen readers. */

export interface Column {
  label: string;
  /** A column of figures: its heading aligns with them. */
  num?: boolean;
  /** A column of buttons: named for screen readers only. */
  hidden?: boolean;
}

export function ColumnHeads({ columns }: { columns: (string | Column | false)[] }) {
  return (
    <thead>
      <tr>
        {columns.map((given) => {
          if (given === false) return null;
          const c = typeof given === "string" ? { label: given } : given;
          return (
            <th scope="col" className={c.num ? "num" : undefined} key={c.label}>
              {c.hidden ? <span className="sr-only">{c.label}</span> : c.label}
            </th>
          );
        })}
      </tr>
    </thead>
  );
}
