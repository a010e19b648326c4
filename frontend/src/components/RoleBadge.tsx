/** A project role as a small coloured label, the same on the members page, the audit log and the switcher's hints. */
export function RoleBadge({ role }: { role: string }) {
  return (
    <span className={`role role-${role}`} data-role={role}>
      {role}
    </span>
  );
}
