import { getBaseline } from "../../api/regressions";
import { componentKey, useApi } from "../../hooks/useApi";
import { MAX_COMPARED } from "../../lib/listQuery";
import { componentUrl } from "../../lib/project";

/**
 * Links the component's baseline when the compared tests share a component (a name within one project) and the
 * baseline is not among them.
 */
export function BaselineLink({ ids, component, project }: { ids: number[]; component: string; project: string }) {
  const baseline = useApi(component ? componentKey(project, component, "baseline") : null, (signal) =>
    getBaseline(component, project, signal),
  );
  const b = baseline.data?.baseline;
  if (!b) return null;
  if (ids.includes(b.id)) {
    return (
      <p className="hint baseline-note">
        #{b.id} is the baseline of <a href={componentUrl(component, project)}>{component}</a>.
      </p>
    );
  }
  const withBaseline = [b.id, ...ids].slice(0, MAX_COMPARED);
  return (
    <p className="baseline-note">
      <a href={`/compare/${withBaseline.join("/")}`}>
        Compare against the baseline of {component}, #{b.id}
      </a>
      {b.name ? <span className="hint"> ({b.name})</span> : null}
    </p>
  );
}
