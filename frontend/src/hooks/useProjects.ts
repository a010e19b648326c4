/**
 * The reader's projects with a role in each (GET /api/v1/projects/, asked once signed in) and the chosen one
 * (lib/project.ts); components re-render when the choice changes.
 */
import { useSyncExternalStore } from "react";
import { getMe } from "../api/endpoints";
import { listProjects } from "../api/projects";
import type { ProjectJson } from "../api/types";
import { chosenProject, effectiveProject, subscribeProject } from "../lib/project";
import { useApi } from "./useApi";

export const PROJECTS_KEY = ["projects"];

export interface Projects {
  /** null while not known (loading, or not signed in: then `signedIn` is false). */
  list: ProjectJson[] | null;
  signedIn: boolean;
  /** Whether the reader is signed in is known, and so are his projects if he is. */
  ready: boolean;
  /** The chosen project's slug, "" for every project (also when the reader lost the chosen one). */
  chosen: string;
  /** The reader's role in `slug` ("" = the default project), null for none. */
  roleIn: (slug: string) => string | null;
}

export function useChosenProject(): string {
  return useSyncExternalStore(subscribeProject, chosenProject, chosenProject);
}

export function useProjects(): Projects {
  const me = useApi(["me"], (signal) => getMe(signal));
  const signedIn = Boolean(me.data?.authenticated);
  const projects = useApi(signedIn ? PROJECTS_KEY : null, (signal) => listProjects(signal));
  const choice = useChosenProject();
  const list = projects.data;
  return {
    list,
    signedIn,
    // An unanswered /me (the server down) counts as known: the pages show their own errors instead of waiting.
    ready: (me.data !== null || me.error !== null) && (!signedIn || list !== null || projects.error !== null),
    chosen: effectiveProject(choice, list ? list.map((p) => p.slug) : null),
    roleIn: (slug) => list?.find((p) => p.slug === (slug || "default"))?.role ?? null,
  };
}
