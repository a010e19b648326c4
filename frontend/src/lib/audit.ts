/** The audit page's filters, kept in the query string (`?action=member.add&actor=ann`) so a filtered log is a link. */
import type { AuditFilter } from "../api/projects";

/** The actions the server records (backend: every `audit(...)` call); the API takes any, these are offered. */
export const AUDIT_ACTIONS = [
  "member.add",
  "member.role",
  "member.remove",
  "member.sign_on",
  "project.create",
  "project.retention",
  "test.visibility",
  "test.delete",
  "test.stop",
  "baseline.set",
  "baseline.clear",
  "kpis.set",
  "subscription.add",
  "subscription.remove",
  "token.create",
  "token.revoke",
] as const;

export function parseAuditQuery(search: string): AuditFilter {
  const p = new URLSearchParams(search);
  return { action: (p.get("action") ?? "").trim(), actor: (p.get("actor") ?? "").trim() };
}

export function serializeAuditQuery(f: AuditFilter): string {
  const out: [string, string][] = [];
  if (f.action.trim()) out.push(["action", f.action.trim()]);
  if (f.actor.trim()) out.push(["actor", f.actor.trim()]);
  return new URLSearchParams(out).toString();
}

export const AUDIT_QUERY = { parse: parseAuditQuery, serialize: serializeAuditQuery };
