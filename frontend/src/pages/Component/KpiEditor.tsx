/**
 * The component's KPI list and thresholds, edited in place and saved with PUT /components/<name>/kpis. The server
 * validates (and names the bad item); this only keeps the form's rows.
 */
import { useEffect, useState } from "react";
import { saveKpis } from "../../api/regressions";
import { DataTable } from "../../components/DataTable";
import { useAction } from "../../hooks/useAction";
import { ColumnHeads } from "../../components/ColumnHeads";
import type { KpiSetting, ThresholdKind } from "../../api/types";
import { submitted } from "../../lib/forms";
import { kpiTitle, KPI_CHOICES } from "./kpis";

interface Row {
  kpi: string;
  kind: ThresholdKind | "";
  value: string;
}

function toRows(kpis: KpiSetting[]): Row[] {
  return kpis.map((k) => ({
    kpi: k.kpi,
    kind: k.threshold?.kind ?? "",
    value: k.threshold ? String(k.threshold.value) : "",
  }));
}

/** The rows as the API takes them; an error message naming the row when a value is not a number. */
export function rowsToKpis(rows: Row[]): KpiSetting[] | string {
  const out: KpiSetting[] = [];
  for (const [i, r] of rows.entries()) {
    if (!r.kind) {
      out.push({ kpi: r.kpi, threshold: null });
      continue;
    }
    const value = Number(r.value);
    if (r.value.trim() === "" || !Number.isFinite(value) || value < 0) {
      return `row ${i + 1} (${r.kpi}): the threshold needs a number ≥ 0`;
    }
    out.push({ kpi: r.kpi, threshold: { kind: r.kind, value } });
  }
  return out;
}

function unitHint(kpi: string, kind: ThresholdKind | ""): string {
  if (kind === "relative") return "% from the baseline";
  if (kind === "") return "";
  if (kpi.startsWith("q")) return "ms";
  if (kpi === "error_share") return "share (0.01 = 1 %)";
  return "RPS";
}

export function KpiEditor({
  component,
  project,
  kpis,
  onSaved,
}: {
  component: string;
  project: string;
  kpis: KpiSetting[];
  onSaved: () => void;
}) {
  const [rows, setRows] = useState<Row[]>(() => toRows(kpis));
  const { busy: saving, error, setError, run } = useAction();
  const [saved, setSaved] = useState(false);
  const kpisKey = JSON.stringify(kpis);
  useEffect(() => setRows(toRows(JSON.parse(kpisKey) as KpiSetting[])), [kpisKey]);

  const update = (i: number, patch: Partial<Row>) => {
    setSaved(false);
    setRows(rows.map((r, j) => (j === i ? { ...r, ...patch } : r)));
  };
  const unused = KPI_CHOICES.filter((k) => !rows.some((r) => r.kpi === k));

  const save = async () => {
    const body = rowsToKpis(rows);
    if (typeof body === "string") {
      setError(body);
      return;
    }
    if (await run(() => saveKpis(component, project, body))) {
      setSaved(true);
      onSaved();
    }
  };

  return (
    <form
      className="kpi-editor"
      aria-label="KPIs and thresholds"
      onSubmit={submitted(() => void save())}
    >
      <DataTable>
          <ColumnHeads columns={["KPI", "Threshold", "Value", { label: "Remove", hidden: true }]} />
          <tbody>
            {rows.map((r, i) => (
              <tr key={r.kpi}>
                <th scope="row">{kpiTitle(r.kpi)}</th>
                <td>
                  <select
                    aria-label={`Threshold of ${r.kpi}`}
                    value={r.kind}
                    onChange={(e) => update(i, { kind: e.target.value as ThresholdKind | "" })}
                  >
                    <option value="">none</option>
                    <option value="absolute">absolute</option>
                    <option value="relative">relative</option>
                  </select>
                </td>
                <td>
                  {r.kind && (
                    <label className="threshold-value">
                      <input
                        type="text"
                        inputMode="decimal"
                        size={8}
                        aria-label={`Threshold value of ${r.kpi}`}
                        value={r.value}
                        onChange={(e) => update(i, { value: e.target.value })}
                      />{" "}
                      <span className="hint">{unitHint(r.kpi, r.kind)}</span>
                    </label>
                  )}
                </td>
                <td>
                  <button
                    type="button"
                    className="link"
                    aria-label={`Remove ${r.kpi}`}
                    onClick={() => {
                      setSaved(false);
                      setRows(rows.filter((_, j) => j !== i));
                    }}
                  >
                    remove
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
      </DataTable>
      <div className="row editor-actions">
        {unused.length > 0 && (
          <label>
            Add{" "}
            <select
              aria-label="Add a KPI"
              value=""
              onChange={(e) => {
                if (!e.target.value) return;
                setSaved(false);
                setRows([...rows, { kpi: e.target.value, kind: "", value: "" }]);
              }}
            >
              <option value="">a KPI…</option>
              {unused.map((k) => (
                <option key={k} value={k}>
                  {kpiTitle(k)}
                </option>
              ))}
            </select>
          </label>
        )}
        <button type="submit" className="button primary" disabled={saving}>
          Save KPIs
        </button>
        {saved && <span className="hint" role="status">Saved.</span>}
        {error && (
          <span className="state error inline" role="alert">
            {error}
          </span>
        )}
      </div>
    </form>
  );
}
