/**
 * A project's members and their roles. Admins get a role picker and a remove button per member; everyone else the
 * list as it is. A change is sent at once; `busy` names the member whose change is under way.
 */
import type { ProjectMember } from "../../api/types";
import { DataTable } from "../../components/DataTable";
import { ColumnHeads } from "../../components/ColumnHeads";
import { Options } from "../../components/Options";
import { RoleBadge } from "../../components/RoleBadge";
import { ROLES } from "../../lib/project";

export function MembersTable({
  members,
  canManage,
  me,
  busy,
  onRole,
  onRemove,
}: {
  members: ProjectMember[];
  canManage: boolean;
  /** The reader's username: his own row says so, and removing himself asks first. */
  me: string;
  busy: string | null;
  onRole: (username: string, role: string) => void;
  onRemove: (username: string) => void;
}) {
  return (
    <DataTable table="members" className="members">
      <ColumnHeads columns={["Member", "Role", canManage && { label: "Actions", hidden: true }]} />
      <tbody>
        {members.map((m) => (
          <tr key={m.username} data-member={m.username}>
            <th scope="row">
              {m.username}
              {m.username === me && <span className="hint"> (you)</span>}
            </th>
            <td>
              {canManage ? (
                <select
                  aria-label={`Role of ${m.username}`}
                  value={m.role}
                  disabled={busy === m.username}
                  onChange={(e) => onRole(m.username, e.target.value)}
                >
                  <Options values={ROLES} />
                </select>
              ) : (
                <RoleBadge role={m.role} />
              )}
            </td>
            {canManage && (
              <td className="actions-cell">
                <button
                  type="button"
                  className="danger small"
                  disabled={busy === m.username}
                  aria-label={`Remove ${m.username}`}
                  onClick={() => onRemove(m.username)}
                >
                  Remove
                </button>
              </td>
            )}
          </tr>
        ))}
      </tbody>
    </DataTable>
  );
}
