/** The test list's filters, kept in the page's query string (`/?search=api&status=ready&page=2`) so links work. */

export interface ListQuery {
  search: string;
  component: string;
  person: string;
  status: string;
  starred: boolean;
  /** Dates as `YYYY-MM-DD` (the browser's date input format); sent to the API as given. */
  since: string;
  until: string;
  /** Tags the tests must all have. */
  tags: string[];
  /** A sort key of the API (`q99`, `-max_rps`...); empty = newest first. */
  ordering: string;
  page: number;
}

export const EMPTY_LIST_QUERY: ListQuery = {
  search: "",
  component: "",
  person: "",
  status: "",
  starred: false,
  since: "",
  until: "",
  tags: [],
  ordering: "",
  page: 1,
};

/** The list's sortable columns: the API's ordering keys. */
export const SORT_KEYS = ["id", "name", "component", "author", "status", "created_at", "duration", "q99", "max_rps", "imbalance_rps"] as const;
export type SortKey = (typeof SORT_KEYS)[number];

/** The ordering after clicking a column: first its natural direction (figures high first), then reversed. */
export function nextOrdering(current: string, key: SortKey): string {
  const descFirst = ["id", "created_at", "duration", "q99", "max_rps", "imbalance_rps"].includes(key);
  const first = descFirst ? `-${key}` : key;
  const second = descFirst ? key : `-${key}`;
  return current === first ? second : first;
}

/** aria-sort of a column under the current ordering (the default is newest first). */
export function sortState(current: string, key: SortKey): "ascending" | "descending" | "none" {
  const effective = current || "-created_at";
  if (effective === key) return "ascending";
  if (effective === `-${key}`) return "descending";
  return "none";
}

export const STATUSES = ["online", "processing", "ready", "failed"] as const;

const DATE = /^\d{4}-\d{2}-\d{2}$/;

export function parseListQuery(search: string): ListQuery {
  const p = new URLSearchParams(search);
  const page = Number(p.get("page") ?? "1");
  const status = p.get("status") ?? "";
  const since = p.get("since") ?? "";
  const until = p.get("until") ?? "";
  return {
    search: p.get("search") ?? "",
    component: p.get("component") ?? "",
    person: p.get("person") ?? "",
    status: (STATUSES as readonly string[]).includes(status) ? status : "",
    starred: p.get("starred") === "1" || p.get("starred") === "true",
    since: DATE.test(since) ? since : "",
    until: DATE.test(until) ? until : "",
    tags: p.getAll("tag").map((t) => t.trim()).filter((t) => t !== ""),
    ordering: (SORT_KEYS as readonly string[]).includes((p.get("ordering") ?? "").replace(/^-/, "")) ? (p.get("ordering") ?? "") : "",
    page: Number.isInteger(page) && page >= 1 ? page : 1,
  };
}

/** Only the non-default values, so the plain list is plain `/`. */
export function listQueryParams(q: ListQuery): [string, string][] {
  const out: [string, string][] = [];
  if (q.search) out.push(["search", q.search]);
  if (q.component) out.push(["component", q.component]);
  if (q.person) out.push(["person", q.person]);
  if (q.status) out.push(["status", q.status]);
  if (q.starred) out.push(["starred", "1"]);
  if (q.since) out.push(["since", q.since]);
  if (q.until) out.push(["until", q.until]);
  for (const t of q.tags) out.push(["tag", t]);
  if (q.ordering) out.push(["ordering", q.ordering]);
  if (q.page > 1) out.push(["page", String(q.page)]);
  return out;
}

export function serializeListQuery(q: ListQuery): string {
  const s = new URLSearchParams(listQueryParams(q)).toString();
  return s ? `?${s}` : "";
}

/** The list's query string, for useUrlState (which writes the part without its `?`). */
export const LIST_QUERY = { parse: parseListQuery, serialize: (q: ListQuery) => serializeListQuery(q).slice(1) };

/** The compare page shows this many tests at most (the first is the reference of the others' verdicts). */
export const MAX_COMPARED = 5;

/** The compare page for the chosen tests, oldest first so differences read "newer vs older"; null unless 2 to 5. */
export function compareUrl(ids: number[]): string | null {
  const unique = [...new Set(ids)].sort((a, b) => a - b);
  return unique.length >= 2 && unique.length <= MAX_COMPARED ? `/compare/${unique.join("/")}` : null;
}
