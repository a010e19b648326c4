/**
 * The header's project switcher: the projects the reader holds a role in, with that role, or every project. The
 * choice is kept (lib/project.ts) and filters the test list; the members page of the chosen project is a link away.
 * Not shown to anonymous readers, nor while the reader has no project.
 */
import type { ProjectJson } from "../api/types";
import { setChosenProject } from "../lib/project";

export function ProjectSwitcher({ projects, chosen }: { projects: ProjectJson[]; chosen: string }) {
  if (projects.length === 0) return null;
  return (
    <span className="project-switcher">
      <label>
        <span className="sr-only">Project</span>
        <select
          name="project"
          aria-label="Project"
          value={chosen}
          title="The project the test list shows"
          onChange={(e) => setChosenProject(e.target.value)}
        >
          <option value="">All projects</option>
          {projects.map((p) => (
            <option key={p.slug} value={p.slug}>
              {p.name}
              {p.role ? ` (${p.role})` : ""}
            </option>
          ))}
        </select>
      </label>
      {chosen && (
        <a href={`/projects/${encodeURIComponent(chosen)}/members`} data-link="members">
          Members
        </a>
      )}
    </span>
  );
}
