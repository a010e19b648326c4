/**
 * The project the reader works in: chosen in the header's switcher, kept in localStorage so it holds across pages
 * and visits ("" = every project the reader can see), and what the roles mean for the buttons a page shows.
 *
 * The server decides every action (a refused one is a 403 naming the role needed and the one held); the pages only
 * hide what the reader's role cannot do, so nobody is offered a button that can only fail.
 */

/** The roles of a project, lowest first: each includes those below it (backend/projects/models.py `Role`). */
export const ROLES = ["viewer", "uploader", "maintainer", "admin"] as const;
export type RoleName = (typeof ROLES)[number];

/** What each role adds, as the members page explains it. */
export const ROLE_MEANING: Record<RoleName, string> = {
  viewer: "reads the project's tests",
  uploader: "also creates tests, uploads and streams from a tank",
  maintainer: "also sets baselines, KPIs and subscriptions, edits, stops and deletes any test",
  admin: "also manages members and the project's settings",
};

const KEY = "tankodrom.project";
const listeners = new Set<() => void>();

function stored(): string {
  try {
    return globalThis.localStorage?.getItem(KEY) ?? "";
  } catch {
    return ""; // storage disabled: every project
  }
}

let chosen = stored();

/** The chosen project's slug; "" = every project. */
export function chosenProject(): string {
  return chosen;
}

export function setChosenProject(slug: string): void {
  chosen = slug;
  try {
    if (slug) globalThis.localStorage?.setItem(KEY, slug);
    else globalThis.localStorage?.removeItem(KEY);
  } catch {
    // Not persisted; the choice still holds for this page.
  }
  for (const listener of listeners) listener();
}

export function subscribeProject(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function isRole(value: unknown): value is RoleName {
  return typeof value === "string" && (ROLES as readonly string[]).includes(value);
}

/** Does `role` (null: no role, or not signed in) include `need`? */
export function roleAtLeast(role: string | null | undefined, need: RoleName): boolean {
  return isRole(role) && ROLES.indexOf(role) >= ROLES.indexOf(need);
}

/**
 * The chosen slug if the reader still holds a role there, else "" (every project): a stored choice outlives a
 * membership, and the list must not filter by a project the reader no longer sees. `slugs` null: not known yet.
 */
export function effectiveProject(choice: string, slugs: string[] | null): string {
  if (!choice || slugs === null) return choice;
  return slugs.includes(choice) ? choice : "";
}

/**
 * The project a component page is about: the link's `?project=` (a test links its component within its own
 * project), else the chosen project, else "" (the server's default project).
 */
export function componentProjectOf(search: string, choice: string): string {
  const fromLink = new URLSearchParams(search).get("project") ?? "";
  return fromLink || choice;
}

/** `?project=<slug>` for the APIs that take it; none for "" (the server picks its default). */
export function projectParams(slug: string): [string, string][] {
  return slug ? [["project", slug]] : [];
}

/** The component page of `name` within `project` ("" = the default project). */
export function componentUrl(name: string, project: string | null | undefined): string {
  const path = `/component/${encodeURIComponent(name)}`;
  return project ? `${path}?project=${encodeURIComponent(project)}` : path;
}

/** Why an action is not offered, as the API words its refusal. */
export function refusalText(need: RoleName, role: string | null | undefined, project: string): string {
  const held = isRole(role) ? `you are ${role}` : "you are not a member";
  return `This needs the ${need} role in project '${project || "default"}'; ${held}.`;
}
