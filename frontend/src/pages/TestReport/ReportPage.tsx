/**
 * `/<id>`: the test report. The header, then the controls shared by every tab (window, cases, resolution, all
 * in the hash with Overload's names), the analysis panel and the tabs. An `online` test polls; a `processing`
 * one shows the upload's progress; a `failed` one says why.
 */
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import type { Params } from "../../api/client";
import { getReport, getSummary, getTest } from "../../api/endpoints";
import { loadPlotly } from "../../components/charts/PlotlyFigure";
import { ErrorBox, Loading } from "../../components/States";
import { useApi, useTicker } from "../../hooks/useApi";
import { useHashState } from "../../hooks/useHashState";
import { zoomToWindow } from "../../lib/figures";
import { TABS, TAB_LABELS, windowParams, type Tab } from "../../lib/viewState";
import { AnalysisPanel, useAnalysis } from "./AnalysisPanel";
import { Controls } from "./Controls";
import { ProgressPanel, UploadNotice } from "./ProgressPanel";
import { ReportHeader } from "./ReportHeader";
import { ConfigTab } from "./tabs/ConfigTab";
import { DistributionsTab, ExtendedTab, OverviewTab } from "./tabs/ChartTabs";
import { NotesPanel, useNotes } from "./NotesPanel";
import { MonitoringTab } from "./tabs/MonitoringTab";
import { TablesTab } from "./tabs/TablesTab";

const STATUS_ORDER = ["online", "processing", "ready", "failed"];

function TabList({ tab, onTab }: { tab: Tab; onTab: (tab: Tab) => void }) {
  const refs = useRef<(HTMLButtonElement | null)[]>([]);
  // Arrow keys move between tabs, as the WAI-ARIA tabs pattern expects.
  const onKey = (e: React.KeyboardEvent, i: number) => {
    const step = e.key === "ArrowRight" ? 1 : e.key === "ArrowLeft" ? -1 : 0;
    const jump = e.key === "Home" ? 0 : e.key === "End" ? TABS.length - 1 : null;
    if (!step && jump === null) return;
    e.preventDefault();
    const next = jump ?? (i + step + TABS.length) % TABS.length;
    const target = TABS[next];
    if (target) {
      onTab(target);
      refs.current[next]?.focus();
    }
  };
  return (
    <div className="tabs" role="tablist" aria-label="Report sections">
      {TABS.map((t, i) => (
        <button
          key={t}
          ref={(el) => {
            refs.current[i] = el;
          }}
          type="button"
          role="tab"
          id={`tab-${t}`}
          aria-selected={t === tab}
          aria-controls="tab-panel"
          tabIndex={t === tab ? 0 : -1}
          data-tab={t}
          onClick={() => onTab(t)}
          onKeyDown={(e) => onKey(e, i)}
        >
          {TAB_LABELS[t]}
        </button>
      ))}
    </div>
  );
}

export function ReportPage({ id }: { id: number }) {
  const [view, update] = useHashState();
  // The last known status decides the polling; it is kept across refetches, when meta.data may be stale.
  const [status, setStatus] = useState<string | null>(null);
  const tick = useTicker(status === "online" || status === "processing", status === "online" ? 5000 : 2000);
  // Bumped after an edit, so the header shows what was saved.
  const [edits, setEdits] = useState(0);
  const meta = useApi(`meta|${id}|${tick}|${edits}`, (signal) => getTest(id, signal));
  const notes = useNotes(id);
  // The second a click on a time chart picked, for the notes form.
  const [picked, setPicked] = useState<number | null>(null);
  const metaStatus = meta.data?.status ?? null;
  useEffect(() => {
    if (metaStatus) setStatus(metaStatus);
  }, [metaStatus]);
  const live = metaStatus ?? status ?? "ready";
  // Online tests refetch everything on each tick; others once per status (processing → ready reloads).
  const refresh = live === "online" ? tick : -STATUS_ORDER.indexOf(live) - 1;
  // Asked together with the metadata, not after it: every step of this waterfall delays the first chart.
  const report = useApi(`report|${id}|${refresh}`, (signal) => getReport(id, signal));
  useEffect(() => {
    void loadPlotly().catch(() => undefined); // the chart component reports a failed load where it draws
  }, []);
  const whole = useApi(meta.data && live !== "processing" ? `sum|${id}|${refresh}` : null, (signal) =>
    getSummary(id, [], signal),
  );

  const complete = live === "ready" || live === "failed";
  const analysis = useAnalysis(id, refresh, complete);
  // The findings' moments (imbalance, first timeouts...) are marked on the time charts.
  // Notes (blue) are marked the same way, on every time chart of the test.
  const marks = useMemo(
    () => [...(analysis.data?.findings ?? []).flatMap((f) => f.annotations ?? []), ...notes.marks],
    [analysis.data, notes.marks],
  );
  const first = report.data?.first_ts ?? meta.data?.first_ts ?? null;
  const last = report.data?.last_ts ?? meta.data?.last_ts ?? null;
  const bounds = useMemo(() => (first !== null && last !== null ? { first, last } : null), [first, last]);
  const cases = report.data?.cases ?? [];

  useEffect(() => {
    const name = meta.data?.name;
    document.title = `#${id}${name ? ` ${name}` : ""} · Tankodrom`;
  }, [id, meta.data?.name]);

  const onXRange = useCallback(
    (start: unknown, end: unknown) => {
      if (!bounds) return;
      const w = zoomToWindow(start, end, bounds);
      if (w) update(w.from <= bounds.first && w.to >= bounds.last ? { from: null, to: null } : w);
    },
    [bounds, update],
  );
  const onJump = useCallback(
    (ts: number) => {
      if (!bounds) return;
      // A minute on each side of the annotated moment, inside the test.
      update({ from: Math.max(bounds.first, ts - 60), to: Math.min(bounds.last, ts + 60), tab: "test_data" });
    },
    [bounds, update],
  );

  if (meta.error && !meta.data) {
    if (meta.error.status === 404) {
      return (
        <main className="page">
          <h1>Test #{id} not found</h1>
          <p>
            It may have been deleted, or the link is wrong. <a href="/">Back to the test list</a>.
          </p>
        </main>
      );
    }
    if (meta.error.status === 401 || meta.error.status === 403) {
      const next = encodeURIComponent(window.location.pathname + window.location.hash);
      return (
        <main className="page">
          <h1>Test #{id} is private</h1>
          <p>
            <a href={`/login?next=${next}`}>Log in</a> as its owner to see it.
          </p>
        </main>
      );
    }
    return (
      <main className="page">
        <ErrorBox error={meta.error} what={`test #${id}`} />
      </main>
    );
  }
  if (!meta.data) {
    return (
      <main className="page">
        <Loading what={`test #${id}`} />
      </main>
    );
  }

  const test = meta.data;
  const tableParams: Params = windowParams(view);
  const chartParams: Params = [
    ...tableParams,
    ["compress_ratio", view.compressRatio === null ? "auto" : String(view.compressRatio)],
  ];
  const hasData = bounds !== null;

  return (
    <main className="page wide report" data-status={test.status}>
      <ReportHeader test={test} summary={whole.data} bounds={bounds} onChanged={() => setEdits((n) => n + 1)} />
      {test.status === "failed" && (
        <div className="state error" role="alert">
          This test failed{test.error ? `: ${test.error}` : "."}
        </div>
      )}
      {test.status === "processing" && <ProgressPanel testId={id} refresh={tick} testError={test.error ?? ""} />}
      {(test.status === "failed" || (test.status === "ready" && test.active_upload)) && (
        <UploadNotice testId={id} refresh={refresh} />
      )}
      {test.status === "online" && (
        <div className="state live" role="status">
          <span className="pulse" aria-hidden="true" /> Online: the tank is still shooting; the page updates every 5 s.
        </div>
      )}
      {report.error && report.error.status !== 404 && <ErrorBox error={report.error} what="the report" />}
      {!hasData && test.status !== "processing" && !report.loading ? (
        <div className="state empty">
          No results yet. {test.status === "online" ? "They appear as the tank sends them." : "Upload a phout file to this test."}
        </div>
      ) : hasData ? (
        <>
          <Controls view={view} bounds={bounds} cases={cases} onChange={update} />
          <AnalysisPanel analysis={analysis} complete={complete} onJump={onJump} />
          <NotesPanel
            testId={id}
            notes={notes.notes}
            bounds={bounds}
            picked={picked}
            canAdd={Boolean(test.can_write)}
            onChanged={notes.reload}
          />
          <TabList tab={view.tab} onTab={(tab) => update({ tab })} />
          <div id="tab-panel" role="tabpanel" aria-labelledby={`tab-${view.tab}`} data-panel={view.tab}>
            {view.tab === "test_data" && (
              <OverviewTab testId={id} params={chartParams} refresh={refresh} onXRange={onXRange} marks={marks} onPickSecond={setPicked} />
            )}
            {view.tab === "extended" && (
              <ExtendedTab testId={id} params={chartParams} refresh={refresh} onXRange={onXRange} marks={marks} onPickSecond={setPicked} />
            )}
            {view.tab === "distributions" && (
              <DistributionsTab
                testId={id}
                params={tableParams}
                refresh={refresh}
                cases={view.cases}
                log={view.log}
                onLog={(log) => update({ log })}
              />
            )}
            {view.tab === "tables" && (
              <TablesTab testId={id} params={tableParams} refresh={refresh} />
            )}
            {view.tab === "monitoring" && (
              <MonitoringTab
                testId={id}
                params={chartParams}
                refresh={refresh}
                hosts={report.data?.monitoring_hosts ?? []}
                machines={view.machines}
                onMachines={(machines) => update({ machines })}
                onXRange={onXRange}
                marks={marks}
              />
            )}
            {view.tab === "config" && <ConfigTab testId={id} />}
          </div>
        </>
      ) : null}
    </main>
  );
}
