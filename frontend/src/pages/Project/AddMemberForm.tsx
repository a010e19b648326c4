/** Adds a member by username with a role (admins). The username must be an existing account: the API says so. */
import { useState } from "react";
import { Options } from "../../components/Options";
import { submitted } from "../../lib/forms";
import { ROLES } from "../../lib/project";

export function AddMemberForm({ onAdd }: { onAdd: (username: string, role: string) => Promise<boolean> }) {
  const [username, setUsername] = useState("");
  const [role, setRole] = useState<string>("viewer");
  const [busy, setBusy] = useState(false);
  return (
    <form
      className="member-form"
      aria-label="Add a member"
      onSubmit={submitted(() => {
        if (!username.trim()) return;
        setBusy(true);
        void onAdd(username.trim(), role).then((added) => {
          setBusy(false);
          if (added) setUsername("");
        });
      })}
    >
      <label>
        Username
        <input
          type="text"
          name="username"
          required
          maxLength={150}
          autoComplete="off"
          value={username}
          onChange={(e) => setUsername(e.target.value)}
        />
      </label>
      <label>
        Role
        <select name="role" value={role} onChange={(e) => setRole(e.target.value)}>
          <Options values={ROLES} />
        </select>
      </label>
      <button type="submit" className="primary" disabled={busy || !username.trim()}>
        Add member
      </button>
    </form>
  );
}
