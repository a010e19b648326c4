/** The audit log's filters: an action and an actor, applied together. */
import { useEffect, useState } from "react";
import type { AuditFilter } from "../../api/projects";
import { AUDIT_ACTIONS } from "../../lib/audit";

export function AuditFilters({ filter, onApply }: { filter: AuditFilter; onApply: (f: AuditFilter) => void }) {
  const [draft, setDraft] = useState(filter);
  useEffect(() => setDraft(filter), [filter]);
  return (
    <form
      className="audit-filters"
      role="search"
      aria-label="Filter the audit log"
      onSubmit={(e) => {
        e.preventDefault();
        onApply(draft);
      }}
    >
      <label>
        Action
        <select name="action" value={draft.action} onChange={(e) => setDraft({ ...draft, action: e.target.value })}>
          <option value="">any</option>
          {[...new Set([...AUDIT_ACTIONS, ...(draft.action ? [draft.action] : [])])].map((a) => (
            <option key={a} value={a}>
              {a}
            </option>
          ))}
        </select>
      </label>
      <label>
        Who (username)
        <input type="text" name="actor" value={draft.actor} onChange={(e) => setDraft({ ...draft, actor: e.target.value })} />
      </label>
      <button type="submit" className="primary">
        Apply
      </button>
      <button type="button" onClick={() => onApply({ action: "", actor: "" })}>
        Reset
      </button>
    </form>
  );
}
