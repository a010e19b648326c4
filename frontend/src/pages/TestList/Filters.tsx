/** The list's filters: search, component, author, tag, status, dates, starred; applied together, from page 1. */
import { useEffect, useState } from "react";
import { Options } from "../../components/Options";
import { STATUSES, parseListQuery, type ListQuery } from "../../lib/listQuery";

export function Filters({ query, onApply }: { query: ListQuery; onApply: (q: ListQuery) => void }) {
  const [draft, setDraft] = useState(query);
  useEffect(() => setDraft(query), [query]);
  const set = <K extends keyof ListQuery>(k: K, v: ListQuery[K]) => setDraft((d) => ({ ...d, [k]: v }));
  // The plain text and date filters: one input each, named as the query string names it.
  const input = (label: string, k: "component" | "person" | "since" | "until", type: "text" | "date" = "text") => (
    <label>
      {label}
      <input type={type} name={k} value={draft[k]} onChange={(e) => set(k, e.target.value)} />
    </label>
  );
  return (
    <form
      className="filters card"
      role="search"
      onSubmit={(e) => {
        e.preventDefault();
        onApply({ ...draft, page: 1 });
      }}
    >
      <label>
        Search
        <input
          type="search"
          name="search"
          placeholder="name, description, id"
          value={draft.search}
          onChange={(e) => set("search", e.target.value)}
        />
      </label>
      {input("Component", "component")}
      {input("Author", "person")}
      <label>
        Tag
        <input
          type="text"
          name="tag"
          placeholder="release"
          value={draft.tags.join(", ")}
          onChange={(e) => set("tags", e.target.value.split(",").map((t) => t.trim()).filter((t) => t !== ""))}
        />
      </label>
      <label>
        Status
        <select name="status" value={draft.status} onChange={(e) => set("status", e.target.value)}>
          <option value="">any</option>
          <Options values={STATUSES} />
        </select>
      </label>
      {input("Since", "since", "date")}
      {input("Until", "until", "date")}
      <label className="check">
        <input type="checkbox" checked={draft.starred} onChange={(e) => set("starred", e.target.checked)} />
        Starred only
      </label>
      <div className="buttons">
        <button type="submit" className="primary">
          Apply
        </button>
        <button type="button" onClick={() => onApply(parseListQuery(""))}>
          Reset
        </button>
      </div>
    </form>
  );
}
