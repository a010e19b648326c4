/**
 * `/projects/<slug>/audit`: who changed membership, roles, visibility, baselines, KPIs, subscriptions, tokens, and
 * who deleted or stopped a test (the newest 200, as the API answers), filtered by action and by actor. Its admins
 * read it; the API refuses anyone else, and the page shows why.
 */
import { useEffect, useState } from "react";
import { listAudit, type AuditFilter } from "../../api/projects";
import { Empty, ErrorBox, Loading } from "../../components/States";
import { useApi } from "../../hooks/useApi";
import { useProjects } from "../../hooks/useProjects";
import { useTimeZone } from "../../hooks/useTimeZone";
import { useUrlState } from "../../hooks/useUrlState";
import { AUDIT_ACTIONS, AUDIT_QUERY } from "../../lib/audit";
import { refusalText, roleAtLeast } from "../../lib/project";
import { AuditTable } from "./AuditTable";
import { ProjectNav } from "./ProjectNav";

function Filters({ filter, onApply }: { filter: AuditFilter; onApply: (f: AuditFilter) => void }) {
  const [draft, setDraft] = useState(filter);
  useEffect(() => setDraft(filter), [filter]);
  return (
    <form
      className="audit-filters"
      role="search"
      aria-label="Filter the audit log"
      onSubmit={(e) => {
        e.preventDefault();
        onApply(draft);
      }}
    >
      <label>
        Action
        <select name="action" value={draft.action} onChange={(e) => setDraft({ ...draft, action: e.target.value })}>
          <option value="">any</option>
          {[...new Set([...AUDIT_ACTIONS, ...(draft.action ? [draft.action] : [])])].map((a) => (
            <option key={a} value={a}>
              {a}
            </option>
          ))}
        </select>
      </label>
      <label>
        Who (username)
        <input type="text" name="actor" value={draft.actor} onChange={(e) => setDraft({ ...draft, actor: e.target.value })} />
      </label>
      <button type="submit" className="primary">
        Apply
      </button>
      <button type="button" onClick={() => onApply({ action: "", actor: "" })}>
        Reset
      </button>
    </form>
  );
}

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
            <Filters filter={filter} onApply={apply} />
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
