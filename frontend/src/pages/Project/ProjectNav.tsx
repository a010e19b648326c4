/** The heading of a project's pages: its name, the reader's role in it, and its pages (the audit log: admins). */
import type { ProjectJson } from "../../api/types";
import { RoleBadge } from "../../components/RoleBadge";
import { roleAtLeast, setChosenProject } from "../../lib/project";

export type ProjectPageName = "members" | "audit";

export function ProjectNav({ slug, project, page }: { slug: string; project: ProjectJson | null; page: ProjectPageName }) {
  const base = `/projects/${encodeURIComponent(slug)}`;
  const link = (name: ProjectPageName, label: string) => (
    <a href={`${base}/${name}`} aria-current={page === name ? "page" : undefined}>
      {label}
    </a>
  );
  return (
    <>
      <div className="title-row">
        <h1>
          Project {project?.name ?? slug} <span className="hint">{slug}</span>
        </h1>
        {project?.role && (
          <span>
            You are <RoleBadge role={project.role} />
          </span>
        )}
        <a href="/" onClick={() => setChosenProject(slug)}>
          its tests
        </a>
      </div>
      <nav className="project-nav" aria-label="Project pages">
        {link("members", "Members")}
        {roleAtLeast(project?.role, "admin") && link("audit", "Audit log")}
      </nav>
    </>
  );
}
