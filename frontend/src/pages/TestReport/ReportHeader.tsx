/**
 * The report's header: who, what, when, how, the status with its reason, the summary chips, and the actions:
 * star, copy link, JSON export, and for whoever may change the test: edit, delete, stop (manage/).
 * The chips follow the chosen window and cases and say which they cover; the JSON export is the whole test's.
 */
import { useState } from "react";
import { downloadText } from "../../lib/download";
import { componentUrl } from "../../lib/project";
import { displayName } from "../../lib/testName";
import { DeleteTestButton } from "./manage/DeleteTestButton";
import { EditTestForm } from "./manage/EditTestForm";
import { StopButton } from "./manage/StopButton";
import { Chip } from "./header/Chip";
import { CopyLink } from "./header/CopyLink";
import { Field } from "./header/Field";
import { RetentionNote } from "./header/RetentionNote";
import { listTests } from "../../api/endpoints";
import { useApi } from "../../hooks/useApi";
import type { Summary, TestMeta } from "../../api/types";
import { selectionLabel, type ViewState } from "../../lib/viewState";
import { StarButton } from "../../components/StarButton";
import { StatusBadge } from "../../components/StatusBadge";
import { LiveFigures } from "../../components/LiveFigures";
import type { LiveFigures as Live } from "../../hooks/useLive";
import { formatCount, formatDuration, formatLoadScheme, formatMs, formatPercent, formatUnix } from "../../lib/format";
import { errorText } from "../../lib/errorText";

export function ReportHeader({
  test,
  wholeSummary,
  tiles,
  tilesStale,
  selection,
  bounds,
  onChanged,
  live = null,
}: {
  test: TestMeta;
  /** The whole test's summary: what the JSON export gives, whatever the chips show. */
  wholeSummary: () => Promise<Summary>;
  /** The summary the chips show: the chosen window and cases' (null while it loads), or the whole test's. */
  tiles: Summary | null;
  /** The chips still show the previous selection's figures while the new one's load. */
  tilesStale: boolean;
  /** The chosen window and cases; null = the whole test. */
  selection: Pick<ViewState, "cases" | "from" | "to"> | null;
  bounds: { first: number; last: number } | null;
  onChanged: () => void;
  /** An online test's live figures from its channel (null: none yet, or not online). */
  live?: Live | null;
}) {
  const [editing, setEditing] = useState(false);
  const title = displayName(test);
  const [exportError, setExportError] = useState<string | null>(null);
  const exportJson = () =>
    wholeSummary().then(
      (summary) => {
        setExportError(null);
        downloadText(`test-${test.id}.json`, JSON.stringify({ test, summary }, null, 1), "application/json");
      },
      (e: unknown) => setExportError(`Export failed: ${errorText(e)}`),
    );
  // The component's previous test, for a one-click "what changed since last time" comparison.
  const previous = useApi(test.component ? ["tests", "previous", test.id, test.component] : null, (signal) =>
    listTests([["component", test.component ?? ""], ["page_size", "20"]], signal).then(
      (page) => page.results.filter((t) => t.id < test.id && t.status === "ready").sort((a, b) => b.id - a.id)[0] ?? null,
    ),
  );
  const target = test.target_host ? `${test.target_host}${test.target_port ? `:${test.target_port}` : ""}` : "";
  const outcomes = tiles?.outcomes;
  const covers = selection ? selectionLabel(selection, bounds) : "whole test";
  const exit =
    test.exit_code !== null && test.exit_code !== undefined
      ? `exit code ${test.exit_code}${test.exit_reason ? `: ${test.exit_reason}` : ""}`
      : test.exit_reason || "";

  return (
    <section className="report-header card" aria-label="Test">
      <div className="title-row">
        <h1>
          <span className="test-id">#{test.id}</span>{" "}
          {title.named ? title.text : <span className="unnamed">{title.text}</span>}
        </h1>
        <StarButton test={test} big name="this test" />
        <StatusBadge status={test.status} />
        {exit && <span className="exit">{exit}</span>}
      </div>
      {live && test.status === "online" && <LiveFigures live={live} />}
      <div className="actions" role="group" aria-label="Test actions">
        <CopyLink />
        <button type="button" onClick={() => void exportJson()} title="The test's metadata and whole-test summary as JSON">
          Export JSON
        </button>
        {exportError && (
          <span className="hint" role="alert">
            {exportError}
          </span>
        )}
        {test.can_write && test.status === "online" && <StopButton test={test} />}
        {test.can_write && (
          <>
            <button type="button" onClick={() => setEditing((e) => !e)} aria-expanded={editing}>
              Edit
            </button>
            <DeleteTestButton test={test} />
          </>
        )}
      </div>
      {editing && (
        <EditTestForm
          test={test}
          onCancel={() => setEditing(false)}
          onSaved={() => {
            setEditing(false);
            onChanged();
          }}
        />
      )}
      {(test.tags ?? []).length > 0 && (
        <ul className="tags" aria-label="Tags">
          {(test.tags ?? []).map((tag) => (
            <li key={tag}>
              <a className="tag" href={`/?tag=${encodeURIComponent(tag)}`}>
                {tag}
              </a>
            </li>
          ))}
        </ul>
      )}
      {test.description && <p className="description">{test.description}</p>}
      <RetentionNote test={test} />
      {previous.data && (
        <p className="previous">
          <a href={`/compare/${previous.data.id}/${test.id}`}>
            Compare with #{previous.data.id}
            {previous.data.version ? ` (version ${previous.data.version})` : ""}
          </a>
          , the previous test of {test.component}
        </p>
      )}
      <dl className="fields">
        <Field label="Author">{test.author}</Field>
        {/* The tank's OS user, when it is not the author (the token's owner). */}
        <Field label="Tank user">{test.person && test.person !== test.author ? test.person : null}</Field>
        <Field label="Task">{test.task}</Field>
        <Field label="Component">
          {test.component ? <a href={componentUrl(test.component, test.project)}>{test.component}</a> : null}
        </Field>
        <Field label="Version">{test.version}</Field>
        <Field label="Target">{target}</Field>
        <Field label="Tank">{test.tank_host}</Field>
        <Field label="Start">{bounds ? formatUnix(bounds.first) : null}</Field>
        <Field label="Duration">{bounds ? formatDuration(bounds.last - bounds.first + 1) : null}</Field>
        <Field label="Load scheme">{formatLoadScheme(test.loadscheme)}</Field>
        <Field label="Instances">{test.instances ?? null}</Field>
      </dl>
      {(selection !== null || (tiles !== null && tiles.count > 0)) && (
        <div className="chips" role="group" aria-label={`Summary of the ${covers}`} aria-busy={!tiles || tilesStale}>
          <p className="chips-covers" data-covers={covers}>
            {selection ? (
              <>
                Window and cases chosen below: <strong>{covers}</strong>
              </>
            ) : (
              "Whole test"
            )}
            {tilesStale && " (updating…)"}
          </p>
          {!tiles ? (
            <span className="hint">Loading the figures of {covers}…</span>
          ) : tiles.count === 0 ? (
            <span className="hint">No responses in {covers}.</span>
          ) : (
            <>
              <Chip label="responses" value={formatCount(tiles.count)} />
              {/* The shares are the API's (analytics/definitions.py): the list, the tables and the chat say the same. */}
              <Chip
                label="errors"
                value={formatPercent(outcomes?.failed_share)}
                tone={(outcomes?.failed_share ?? 0) > 0 ? "bad" : "good"}
              />
              <Chip label="2xx" value={formatPercent(outcomes?.http_2xx_share)} />
              <Chip
                label="net errors"
                value={formatPercent(outcomes?.net_errors_share)}
                tone={(outcomes?.net_errors_share ?? 0) > 0 ? "bad" : "good"}
              />
              <Chip label="max RPS" value={formatCount(tiles.rps.max)} />
              <Chip label="q99, ms" value={formatMs(tiles.quantiles_ms["99"])} />
              {!tiles.exact && <Chip label="quantiles" value="from histograms" />}
            </>
          )}
        </div>
      )}
    </section>
  );
}
