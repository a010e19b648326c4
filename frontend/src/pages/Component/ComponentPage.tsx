/**
 * `/component/<name>`: the component's regression dashboard (/components/<name>/dashboard). Each KPI (chosen
 * quantiles, max RPS, imbalance RPS, error share) across the component's tests, with its threshold (absolute or
 * relative to the baseline), the points past it, the change points; a click on a point opens that test. Below:
 * the baseline, the KPI editor, every test with its values and a link comparing it with the baseline, and the
 * log of notifications sent.
 *
 * A component is a name within a project: the page's `?project=<slug>` (a test links its component so), else the
 * header's chosen project, else the server's default. Its baseline, KPIs and subscriptions are changed by the
 * project's maintainers: the editors are shown to them only, and anyone else signed in is told the role needed.
 */
import { useEffect } from "react";
import { getDashboard } from "../../api/regressions";
import { loadPlotly } from "../../components/charts/PlotlyFigure";
import { Loaded } from "../../components/Loaded";
import { Empty } from "../../components/States";
import { componentKey, refreshComponent, useApi } from "../../hooks/useApi";
import { componentProjectOf, refusalText, roleAtLeast, setChosenProject } from "../../lib/project";
import { useChosenProject, useProjects } from "../../hooks/useProjects";
import { BaselinePanel } from "./BaselinePanel";
import { DeliveryLog } from "./DeliveryLog";
import { KpiEditor } from "./KpiEditor";
import { NotifyPanel } from "./NotifyPanel";
import { KpiCard } from "./KpiCard";
import { TestsTable } from "./TestsTable";
import "./dashboard.css";

export function ComponentPage({ name }: { name: string }) {
  useEffect(() => {
    document.title = `${name} · component · Tankodrom`;
    void loadPlotly().catch(() => undefined);
  }, [name]);
  const project = componentProjectOf(window.location.search, useChosenProject());
  const board = useApi(componentKey(project, name, "dashboard"), (signal) => getDashboard(name, project, signal));
  const projects = useProjects();
  const signedIn = projects.signedIn;
  const role = projects.roleIn(project);
  // Hidden from the others (the server refuses them anyway, naming the role): baseline, KPIs, subscriptions.
  const canManage = roleAtLeast(role, "maintainer");
  const refused = signedIn && projects.list !== null && !canManage ? refusalText("maintainer", role, project) : null;
  const refresh = () => void refreshComponent(project, name);

  return (
    <main className="page wide component">
      <div className="title-row">
        <h1>
          Component {name} <span className="hint">in project {project || "default"}</span>
        </h1>
        <a href={`/?component=${encodeURIComponent(name)}`} onClick={() => setChosenProject(project)}>
          its tests in the list
        </a>
      </div>
      <Loaded answer={board} what="the dashboard">
        {(data) => (
          <>
            <div className="two-col dashboard-top">
              <BaselinePanel
                component={name}
                project={project}
                baseline={data.baseline}
                tests={data.tests}
                canEdit={canManage}
                refused={refused}
                onChanged={refresh}
              />
              <section className="card" aria-label="KPIs and thresholds">
                <h2>KPIs and thresholds</h2>
                {canManage ? (
                  <KpiEditor
                    component={name}
                    project={project}
                    kpis={data.kpis.map((k) => ({ kpi: k.kpi, threshold: k.threshold }))}
                    onSaved={refresh}
                  />
                ) : refused ? (
                  <p className="refused" data-refused="kpis">
                    {refused}
                  </p>
                ) : (
                  !signedIn && <p className="hint">Log in to change them.</p>
                )}
                {!data.kpis_stored && <p className="hint">These are the defaults: nobody has set this component's yet.</p>}
              </section>
            </div>
            {data.tests.length === 0 ? (
              <Empty>No finished tests of component “{name}” yet.</Empty>
            ) : (
              <>
                <div className="charts grid kpi-grid">
                  {data.kpis.map((k) => (
                    <KpiCard key={k.kpi} series={k} />
                  ))}
                </div>
                <TestsTable data={data} />
              </>
            )}
            {canManage && (
              <div className="two-col">
                <NotifyPanel component={name} project={project} />
                <DeliveryLog component={name} project={project} />
              </div>
            )}
          </>
        )}
      </Loaded>
    </main>
  );
}
