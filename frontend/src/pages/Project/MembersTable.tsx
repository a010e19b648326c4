/**
 * A project's members and their roles. Admins get a role picker and a remove button per member; everyone else the
 * list as it is. A change is sent at once; `busy` names the member whose change is under way.
 */
import type { ProjectMember } from "../../api/types";
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
    <div className="scroll-x">
      <table className="data members" data-table="members">
        <thead>
          <tr>
            <th scope="col">Member</th>
            <th scope="col">Role</th>
            {canManage && (
              <th scope="col">
                <span className="sr-only">Actions</span>
              </th>
            )}
          </tr>
        </thead>
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
                    {ROLES.map((r) => (
                      <option key={r} value={r}>
                        {r}
                      </option>
                    ))}
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
      </table>
    </div>
  );
}
