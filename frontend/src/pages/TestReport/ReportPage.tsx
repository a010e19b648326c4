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
import { fetchApi, followTest, refreshTest, testKey, useApi } from "../../hooks/useApi";
import { useLive } from "../../hooks/useLive";
import { useUrlState } from "../../hooks/useUrlState";
import { zoomToWindow } from "../../lib/figures";
import { stopMark, stopWords } from "../../lib/stop";
import { REPORT_VIEW, windowParams, type ViewState } from "../../lib/viewState";
import { AnalysisPanel, useAnalysis } from "./AnalysisPanel";
import { Controls } from "./Controls";
import { ProgressPanel } from "./ProgressPanel";
import { UploadNotice } from "./UploadNotice";
import { ReportHeader } from "./ReportHeader";
import { TabList } from "./TabList";
import { ConfigTab } from "./tabs/ConfigTab";
import { DistributionsTab } from "./tabs/DistributionsTab";
import { ExtendedTab } from "./tabs/ExtendedTab";
import { OverviewTab } from "./tabs/OverviewTab";
import { NotesPanel, useNotes } from "./NotesPanel";
import { MonitoringTab } from "./tabs/MonitoringTab";
import { TablesTab } from "./tabs/TablesTab";

/**
 * Keeps a test's answers current: while online everything is asked again each time the live channel says new seconds
 * are stored
 * (or every 5 s by polling while the channel is not open), while processing the status and the upload's progress
 * every 2 s; when the status changes (processing → ready) everything is asked once more.
 */
function usePolling(id: number, status: string | null, pushed: boolean): void {
  useEffect(() => {
    if (status !== "online" && status !== "processing") return;
    if (status === "online" && pushed) return; // the live channel says when there is something new
    const online = status === "online";
    const timer = window.setInterval(
      () => {
        if (online) void refreshTest(id);
        else void Promise.all([refreshTest(id, "meta"), refreshTest(id, "uploads")]);
      },
      online ? 5000 : 2000,
    );
    return () => window.clearInterval(timer);
  }, [id, status, pushed]);
  const seen = useRef<string | null>(null);
  useEffect(() => {
    if (status === null) return;
    if (seen.current !== null && seen.current !== status) void refreshTest(id);
    seen.current = status;
  }, [id, status]);
}

export function ReportPage({ id }: { id: number }) {
  const [view, setView] = useUrlState("hash", REPORT_VIEW, { normalise: true });
  const update = useCallback((patch: Partial<ViewState>) => setView((now) => ({ ...now, ...patch })), [setView]);
  const meta = useApi(testKey(id, "meta"), (signal) => getTest(id, signal));
  const notes = useNotes(id);
  // The second a click on a time chart picked, for the notes form.
  const [picked, setPicked] = useState<number | null>(null);
  const live = meta.data?.status ?? "ready";
  // A pinned window (from/to chosen) stops following: its charts stay; the header's live figures still move.
  const pinned = view.from !== null || view.to !== null;
  const channel = useLive(live === "online" ? `/api/v1/tests/${id}/live` : null, {
    onStored: () => void (pinned ? followTest(id, "meta") : followTest(id)),
    onStatus: () => void refreshTest(id, "meta"),
  });
  usePolling(id, meta.data?.status ?? null, channel.live);
  // Asked together with the metadata, not after it: every step of this waterfall delays the first chart.
  const report = useApi(testKey(id, "report"), (signal) => getReport(id, signal));
  useEffect(() => {
    void loadPlotly().catch(() => undefined); // the chart component reports a failed load where it draws
  }, []);
  // The header's chips show the summary of the chosen window and cases (of the whole test when none is chosen);
  // the JSON export asks for the whole test's when it is clicked.
  const selection = windowParams(view);
  const summaryAsked = Boolean(meta.data) && live !== "processing";
  const tiles = useApi(summaryAsked ? testKey(id, "summary", selection) : null, (signal) =>
    getSummary(id, selection, signal),
  );
  const wholeSummary = useCallback(
    () => fetchApi(testKey(id, "summary", []), (signal) => getSummary(id, [], signal)),
    [id],
  );

  const complete = live === "ready" || live === "failed";
  const analysis = useAnalysis(id, complete);
  // The findings' moments (imbalance, first timeouts...) are marked on the time charts.
  // Notes (blue) are marked the same way, on every time chart of the test.
  const first = report.data?.first_ts ?? meta.data?.first_ts ?? null;
  const last = report.data?.last_ts ?? meta.data?.last_ts ?? null;
  // A stop from the web is marked on every time chart, in its own colour.
  const stop = stopMark(meta.data?.stopped_at, last, Boolean(meta.data?.stop_ends_shooting));
  const stopKey = stop ? `${stop.ts} ${stop.label}` : "";
  const marks = useMemo(
    () => [
      ...(analysis.data?.findings ?? []).flatMap((f) => f.annotations ?? []),
      ...notes.marks,
      ...(stop ? [stop] : []),
    ],
    // eslint-disable-next-line react-hooks/exhaustive-deps -- `stop` is rebuilt each render; stopKey names it
    [analysis.data, notes.marks, stopKey],
  );
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
      <ReportHeader
        test={test}
        wholeSummary={wholeSummary}
        tiles={tiles.data}
        tilesStale={tiles.stale}
        selection={summaryAsked && selection.length > 0 ? view : null}
        bounds={bounds}
        onChanged={() => void refreshTest(id, "meta")}
        live={channel.seconds[id]?.live ?? null}
      />
      {test.status === "failed" && (
        <div className="state error" role="alert">
          This test failed{test.error ? `: ${test.error}` : "."}
        </div>
      )}
      {test.status === "processing" && <ProgressPanel testId={id} testError={test.error ?? ""} />}
      {(test.status === "failed" || (test.status === "ready" && test.active_upload)) && (
        <UploadNotice testId={id} />
      )}
      {test.status === "online" && !test.stop_requested && (
        <div className="state live" role="status">
          <span className="pulse" aria-hidden="true" /> Online: the tank is still shooting;{" "}
          {pinned
            ? "a window is pinned, so the charts stay as they are (clear it to follow)."
            : channel.live
              ? "each second appears as it lands."
              : "the page updates every 5 s."}
        </div>
      )}
      {test.status === "online" && test.stop_requested && (
        <div className="state live stopped" role="status">
          Stopped from the web: {stopWords(Boolean(test.stop_ends_shooting)).after}.
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
              <OverviewTab testId={id} params={chartParams} onXRange={onXRange} marks={marks} onPickSecond={setPicked} />
            )}
            {view.tab === "extended" && (
              <ExtendedTab testId={id} params={chartParams} onXRange={onXRange} marks={marks} onPickSecond={setPicked} />
            )}
            {view.tab === "distributions" && (
              <DistributionsTab
                testId={id}
                params={tableParams}
                cases={view.cases}
                log={view.log}
                onLog={(log) => update({ log })}
              />
            )}
            {view.tab === "tables" && (
              <TablesTab testId={id} params={tableParams} />
            )}
            {view.tab === "monitoring" && (
              <MonitoringTab
                testId={id}
                params={chartParams}
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
