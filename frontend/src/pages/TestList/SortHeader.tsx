/** A column heading that sorts the list by its column; a click steps through ascending, descending, none. */
import { nextOrdering, sortState, type ListQuery, type SortKey } from "../../lib/listQuery";

export function SortHeader({
  label,
  sortKey,
  query,
  onSort,
  num,
}: {
  label: string;
  sortKey: SortKey;
  query: ListQuery;
  onSort: (ordering: string) => void;
  num?: boolean;
}) {
  const state = sortState(query.ordering, sortKey);
  return (
    <th scope="col" className={num ? "num" : undefined} aria-sort={state}>
      <button type="button" className="sort" data-sort={sortKey} onClick={() => onSort(nextOrdering(query.ordering, sortKey))}>
        {label}
        <span aria-hidden="true" className="sort-mark">
          {state === "ascending" ? " ▲" : state === "descending" ? " ▼" : ""}
        </span>
      </button>
    </th>
  );
}
