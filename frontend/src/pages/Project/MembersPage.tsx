/**
 * `/projects/<slug>/members`: who holds which role in the project. Its admins (and site admins) add a member by
 * username, change a role and remove a member; every other member reads the list. A project the reader holds no
 * role in answers 404 like a missing one, and the page says just that.
 */
import { useEffect, useState } from "react";
import { addMember, listMembers, removeMember, setMemberRole } from "../../api/projects";
import { Empty, ErrorBox, Loading } from "../../components/States";
import { useAction } from "../../hooks/useAction";
import { queryClient, useApi } from "../../hooks/useApi";
import { PROJECTS_KEY, useProjects } from "../../hooks/useProjects";
import { getMe } from "../../api/endpoints";
import { ROLES, ROLE_MEANING, refusalText, roleAtLeast } from "../../lib/project";
import { AddMemberForm } from "./AddMemberForm";
import { MembersTable } from "./MembersTable";
import { ProjectNav } from "./ProjectNav";

export function MembersPage({ slug }: { slug: string }) {
  useEffect(() => {
    document.title = `Members of ${slug} · Tankodrom`;
  }, [slug]);
  const projects = useProjects();
  const me = useApi(["me"], (signal) => getMe(signal));
  const members = useApi(["project", slug, "members"], (signal) => listMembers(slug, signal));
  const project = projects.list?.find((p) => p.slug === slug) ?? null;
  const canManage = roleAtLeast(project?.role, "admin");
  // Whose row waits for its change (the hook's own flag cannot say whose).
  const [busy, setBusy] = useState<string | null>(null);
  const { error, run } = useAction();
  const [done, setDone] = useState<string | null>(null);

  /** One change: shown as it went (the API's refusal names the role needed and the one held), then reloaded. */
  const change = async (who: string, action: () => Promise<unknown>, said: string): Promise<boolean> => {
    setBusy(who);
    setDone(null);
    const went = await run(action);
    if (went) setDone(said);
    setBusy(null);
    // The reader's own role may have changed too: the switcher and the buttons follow.
    await Promise.all([
      queryClient.invalidateQueries({ queryKey: ["project", slug] }),
      queryClient.invalidateQueries({ queryKey: PROJECTS_KEY }),
    ]);
    return went;
  };
  const self = me.data?.username ?? "";
  const onRemove = (username: string) => {
    const lose = username === self ? " You will lose access to this project." : "";
    if (!window.confirm(`Remove ${username} from ${slug}?${lose}`)) return;
    void change(username, () => removeMember(slug, username), `${username} is no longer a member.`);
  };

  return (
    <main className="page project" data-page="members">
      <ProjectNav slug={slug} project={project} page="members" />
      {members.error ? (
        <ErrorBox error={members.error} what="the members" />
      ) : !members.data ? (
        <Loading what="the members" />
      ) : (
        <div className="two-col">
          <section className="card" aria-label="Members">
            <h2>Members</h2>
            {members.data.length === 0 ? (
              <Empty>Nobody holds a role here yet.</Empty>
            ) : (
              <MembersTable
                members={members.data}
                canManage={canManage}
                me={self}
                busy={busy}
                onRole={(username, role) =>
                  void change(username, () => setMemberRole(slug, username, role), `${username} is now ${role}.`)
                }
                onRemove={onRemove}
              />
            )}
            <div aria-live="polite">
              {error && (
                <p className="state error" role="alert">
                  {error}
                </p>
              )}
              {done && <p className="hint">{done}</p>}
            </div>
          </section>
          <section className="card" aria-label="Roles">
            {canManage ? (
              <>
                <h2>Add a member</h2>
                <AddMemberForm
                  onAdd={(username, role) =>
                    change(username, () => addMember(slug, username, role), `${username} is now ${role}.`)
                  }
                />
              </>
            ) : (
              projects.list && (
              <p className="refused" data-refused="members">
                {refusalText("admin", project?.role, slug)} Its admins add and remove members.
              </p>
              )
            )}
            <h2 className="roles-heading">What each role may do</h2>
            <dl className="roles">
              {ROLES.map((r) => (
                <div key={r} style={{ display: "contents" }}>
                  <dt>{r}</dt>
                  <dd>{ROLE_MEANING[r]}</dd>
                </div>
              ))}
            </dl>
          </section>
        </div>
      )}
    </main>
  );
}
