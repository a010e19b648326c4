/**
 * `/projects/<slug>/audit`: who changed membership, roles, visibility, baselines, KPIs, subscriptions, tokens, and
 * who deleted or stopped a test (the newest 200, as the API answers), filtered by action and by actor. Its admins
 * read it; the API refuses anyone else, and the page shows why.
 */
import { useEffect } from "react";
import { listAudit } from "../../api/projects";
import { Empty, ErrorBox, Loading } from "../../components/States";
import { useApi } from "../../hooks/useApi";
import { useProjects } from "../../hooks/useProjects";
import { useTimeZone } from "../../hooks/useTimeZone";
import { useUrlState } from "../../hooks/useUrlState";
import { AUDIT_QUERY } from "../../lib/audit";
import { refusalText, roleAtLeast } from "../../lib/project";
import { AuditFilters } from "./AuditFilters";
import { AuditTable } from "./AuditTable";
import { ProjectNav } from "./ProjectNav";

export function AuditPage({ slug }: { slug: string }) {
  useTimeZone(); // the When column follows the reader's choice of local time or UTC
  useEffect(() => {
    document.title = `Audit log of ${slug} · Tankodrom`;
  }, [slug]);
  const projects = useProjects();
  const project = projects.list?.find((p) => p.slug === slug) ?? null;
  const [filter, apply] = useUrlState("search", AUDIT_QUERY);
  // Asked of admins only: anyone else would get the API's 403 (or 404), said below in the page's own words.
  const admin = roleAtLeast(project?.role, "admin");
  const events = useApi(admin ? ["project", slug, "audit", filter] : null, (signal) => listAudit(slug, filter, signal));
  const filtered = Boolean(filter.action || filter.actor);

  return (
    <main className="page wide project" data-page="audit">
      <ProjectNav slug={slug} project={project} page="audit" />
      {!projects.ready ? (
        <Loading what="your projects" />
      ) : !projects.signedIn ? (
        <p className="refused" data-refused="audit">
          Log in: the audit log is for the project's admins.
        </p>
      ) : !project ? (
        <div className="state error" role="alert">
          Could not load the audit log (404): project {`'${slug}'`} not found.
        </div>
      ) : !admin ? (
        <p className="refused" data-refused="audit">
          {refusalText("admin", project?.role, slug)} Its admins read the audit log.
        </p>
      ) : (
        <section className="card" aria-label="Audit log">
          <div className="table-head">
            <h2>Audit log, newest first</h2>
            <AuditFilters filter={filter} onApply={apply} />
          </div>
          {events.error ? (
            <ErrorBox error={events.error} what="the audit log" />
          ) : !events.data ? (
            <Loading what="the audit log" />
          ) : events.data.length === 0 ? (
            <Empty>{filtered ? "Nothing matches these filters." : "Nothing has been changed in this project yet."}</Empty>
          ) : (
            <AuditTable
              events={events.data}
              onActor={(actor) => apply({ ...filter, actor })}
              onAction={(action) => apply({ ...filter, action })}
            />
          )}
        </section>
      )}
    </main>
  );
}
