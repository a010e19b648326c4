/** Typed calls of the projects endpoints: the caller's projects, a project's members (its admins change them), its
 * audit log (its admins read it). A project the caller holds no role in answers 404, like a missing one. */
import { getJson, sendJson, type Params } from "./client";
import type { AuditEventJson, ProjectJson, ProjectMember } from "./types";

const API = "/api/v1/projects";
const project = (slug: string) => `${API}/${encodeURIComponent(slug)}`;

export const listProjects = (signal?: AbortSignal) => getJson<ProjectJson[]>(`${API}/`, [], signal);

export const listMembers = (slug: string, signal?: AbortSignal) =>
  getJson<ProjectMember[]>(`${project(slug)}/members/`, [], signal);

/** Adds a member, or changes the role of one already there (the API answers both alike). */
export const addMember = (slug: string, username: string, role: string) =>
  sendJson<ProjectMember>("POST", `${project(slug)}/members/`, { username, role });

export const setMemberRole = (slug: string, username: string, role: string) =>
  sendJson<ProjectMember>("PATCH", `${project(slug)}/members/${encodeURIComponent(username)}/`, { role });

export const removeMember = (slug: string, username: string) =>
  sendJson<null>("DELETE", `${project(slug)}/members/${encodeURIComponent(username)}/`);

/** The audit filters the API takes (each an exact match; empty = any). */
export interface AuditFilter {
  action: string;
  actor: string;
}

export function auditParams(filter: AuditFilter): Params {
  const out: Params = [];
  if (filter.action.trim()) out.push(["action", filter.action.trim()]);
  if (filter.actor.trim()) out.push(["actor", filter.actor.trim()]);
  return out;
}

export const listAudit = (slug: string, filter: AuditFilter, signal?: AbortSignal) =>
  getJson<AuditEventJson[]>(`${project(slug)}/audit/`, auditParams(filter), signal);
