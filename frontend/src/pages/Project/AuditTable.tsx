/** A project's audit events, newest first: when, who, what, on what, and the details the server kept. */
import type { AuditEventJson } from "../../api/types";
import { DataTable } from "../../components/DataTable";
import { ColumnHeads } from "../../components/ColumnHeads";
import { formatIso } from "../../lib/format";

function details(d: Record<string, unknown>): string {
  return Object.entries(d)
    .map(([k, v]) => `${k}: ${typeof v === "string" ? v : JSON.stringify(v)}`)
    .join(" · ");
}

export function AuditTable({ events, onActor, onAction }: {
  events: AuditEventJson[];
  /** A click on an actor or an action filters by it. */
  onActor: (actor: string) => void;
  onAction: (action: string) => void;
}) {
  return (
    <DataTable table="audit" className="audit">
      <ColumnHeads columns={["When", "Who", "Action", "On", "Details"]} />
      <tbody>
        {events.map((e, i) => (
          <tr key={`${e.at}-${i}`} data-action={e.action}>
            <td className="when">{formatIso(e.at)}</td>
            <td className="who">
              {e.actor ? (
                <button type="button" className="link" title={`Only what ${e.actor} did`} onClick={() => onActor(e.actor ?? "")}>
                  {e.actor}
                </button>
              ) : (
                <span className="hint">system</span>
              )}
            </td>
            <td className="action">
              <button type="button" className="link" title={`Only ${e.action}`} onClick={() => onAction(e.action)}>
                <code>{e.action}</code>
              </button>
            </td>
            <td>{e.target}</td>
            <td className="details">{details(e.details)}</td>
          </tr>
        ))}
      </tbody>
    </DataTable>
  );
}
