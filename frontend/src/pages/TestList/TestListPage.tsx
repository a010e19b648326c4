/**
 * `/`: the tests, newest first or sorted by any column, with search, filters (tags too), pagination, stars,
 * headline figures (q99, max RPS, imbalance, result), and a pick of two or more tests to compare. Filters and
 * order live in the query string, so a filtered, sorted list is a link.
 */
import { useEffect, useState } from "react";
import { listTests } from "../../api/endpoints";
import type { TestMeta } from "../../api/types";
import { Empty, ErrorBox, Loading } from "../../components/States";
import { StarButton } from "../../components/StarButton";
import { queryClient, useApi } from "../../hooks/useApi";
import { useLive } from "../../hooks/useLive";
import { LiveFigures } from "../../components/LiveFigures";
import { formatCount, formatDuration, formatIso, formatMs, formatUnix } from "../../lib/format";
import {
  LIST_QUERY,
  compareUrl,
  MAX_COMPARED,
  listQueryParams,
  parseListQuery,
} from "../../lib/listQuery";
import { componentUrl, projectParams, setChosenProject } from "../../lib/project";
import { displayName } from "../../lib/testName";
import { useProjects } from "../../hooks/useProjects";
import { useTimeZone } from "../../hooks/useTimeZone";
import { useUrlState } from "../../hooks/useUrlState";
import { Filters } from "./Filters";
import { SortHeader } from "./SortHeader";
import { TestResult } from "./TestResult";

// Asked explicitly so the page count is known whatever the server's default.
const PAGE_SIZE = 50;

function duration(t: TestMeta): number | null {
  if (t.first_ts && t.last_ts) return t.last_ts - t.first_ts + 1;
  if (t.created_at && t.finished_at) return (Date.parse(t.finished_at) - Date.parse(t.created_at)) / 1000;
  return null;
}

export function TestListPage() {
  useTimeZone(); // the Started column follows the reader's choice of local time or UTC
  const [query, apply] = useUrlState("search", LIST_QUERY);
  const [selected, setSelected] = useState<number[]>([]);
  const params = listQueryParams(query);
  // The header's project: the list shows that project's tests (those the reader may read), or every project's.
  const projects = useProjects();
  const project = projects.list?.find((p) => p.slug === projects.chosen) ?? null;
  const scope = projectParams(project ? project.slug : "");
  // A stored choice waits for the reader's projects (is it still one of them?), so the list is asked once, not first
  // unfiltered and then again.
  const hold = projects.chosen !== "" && !projects.ready;
  const list = useApi(hold ? null : ["tests", params, scope], (signal) =>
    listTests([...params, ...scope, ["page_size", String(PAGE_SIZE)]], signal),
  );

  // The online rows follow their tests' live channel: figures of the newest second, and a refresh when one ends.
  const online = (list.data?.results ?? []).filter((t) => t.status === "online").map((t) => t.id);
  const channel = useLive(online.length > 0 ? `/api/v1/live?tests=${online.join(",")}` : null, {
    onStatus: () => void queryClient.invalidateQueries({ queryKey: ["tests"] }),
  });

  useEffect(() => {
    document.title = "Tests · Tankodrom";
  }, []);

  const sort = (ordering: string) => apply({ ...query, ordering, page: 1 });
  const toggle = (id: number) =>
    setSelected((s) => (s.includes(id) ? s.filter((x) => x !== id) : s.length < MAX_COMPARED ? [...s, id] : s));
  const compare = compareUrl(selected);

  const results = list.data?.results ?? [];
  const total = list.data?.count ?? 0;
  const pages = Math.max(1, Math.ceil(total / PAGE_SIZE));
  const hasNext = list.data?.next ? true : query.page < pages;

  return (
    <main className="page wide">
      <div className="title-row">
        <h1>
          Tests
          {project && (
            <span className="hint">
              {" "}
              in {project.name}{" "}
              <button type="button" className="link" onClick={() => setChosenProject("")} title="Show every project's tests">
                (all projects)
              </button>
            </span>
          )}
        </h1>
        <div className="compare-bar" aria-live="polite">
          {selected.length > 0 && <span>{selected.length} selected</span>}
          {compare ? (
            <a className="button primary" href={compare}>
              Compare {selected.length} tests
            </a>
          ) : (
            <span className="hint">Tick two or more tests to compare them</span>
          )}
          {selected.length > 0 && (
            <button type="button" onClick={() => setSelected([])}>
              Clear
            </button>
          )}
        </div>
      </div>
      <Filters query={query} onApply={apply} />
      {list.error ? (
        <ErrorBox error={list.error} what="the tests" />
      ) : (list.loading || hold) && !list.data ? (
        <Loading what="tests" />
      ) : results.length === 0 ? (
        <Empty>
          No tests match.{" "}
          {params.length > 0 ? (
            <button type="button" className="link" onClick={() => apply(parseListQuery(""))}>
              Clear the filters
            </button>
          ) : (
            <>
              Point a tank at this service or upload a phout file (<a href="/api/docs/">API docs</a>).
            </>
          )}
        </Empty>
      ) : (
        <div className="card flush scroll-x">
          <table className="tests" aria-busy={list.loading}>
            <thead>
              <tr>
                <th scope="col">
                  <span className="sr-only">Select</span>
                </th>
                <th scope="col">
                  <span className="sr-only">Star</span>
                </th>
                <SortHeader label="Id" sortKey="id" query={query} onSort={sort} />
                <SortHeader label="Name" sortKey="name" query={query} onSort={sort} />
                <SortHeader label="Component" sortKey="component" query={query} onSort={sort} />
                <SortHeader label="Author" sortKey="author" query={query} onSort={sort} />
                <SortHeader label="Result" sortKey="status" query={query} onSort={sort} />
                <SortHeader label="Started" sortKey="created_at" query={query} onSort={sort} num />
                <SortHeader label="Duration" sortKey="duration" query={query} onSort={sort} num />
                <SortHeader label="q99, ms" sortKey="q99" query={query} onSort={sort} num />
                <SortHeader label="Max RPS" sortKey="max_rps" query={query} onSort={sort} num />
                <SortHeader label="Imbalance RPS" sortKey="imbalance_rps" query={query} onSort={sort} num />
              </tr>
            </thead>
            <tbody>
              {results.map((t) => {
                const title = displayName(t);
                const live = t.status === "online" ? channel.seconds[t.id]?.live : undefined;
                return (
                  <tr key={t.id} className={selected.includes(t.id) ? "selected" : ""} data-test={t.id}>
                    <td>
                      <input
                        type="checkbox"
                        aria-label={`Select test ${t.id} for comparison`}
                        checked={selected.includes(t.id)}
                        disabled={!selected.includes(t.id) && selected.length >= MAX_COMPARED}
                        title={
                          !selected.includes(t.id) && selected.length >= MAX_COMPARED
                            ? `Compare shows ${MAX_COMPARED} tests at most`
                            : undefined
                        }
                        onChange={() => toggle(t.id)}
                      />
                    </td>
                    <td>
                      <StarButton test={t} name={`test ${t.id}`} />
                    </td>
                    <td>
                      <a href={`/${t.id}`}>#{t.id}</a>
                    </td>
                    <td className="name">
                      <a href={`/${t.id}`} className={title.named ? undefined : "unnamed"}>
                        {title.text}
                      </a>
                      {(t.tags ?? []).map((tag) => (
                        <button
                          type="button"
                          key={tag}
                          className="tag"
                          title={`Only tests tagged ${tag}`}
                          onClick={() => apply({ ...query, tags: [...new Set([...query.tags, tag])], page: 1 })}
                        >
                          {tag}
                        </button>
                      ))}
                      {t.description && <div className="hint clip">{t.description}</div>}
                    </td>
                    <td className="component">
                      {t.component ? (
                        <a className="clip" href={componentUrl(t.component, t.project)} title={t.component}>
                          {t.component}
                        </a>
                      ) : (
                        "—"
                      )}
                    </td>
                    <td className="author">{t.author || "—"}</td>
                    <td className="result-cell">
                      <TestResult test={t} />
                      {live && <LiveFigures live={live} compact />}
                    </td>
                    <td className="num">{t.first_ts ? formatUnix(t.first_ts).slice(0, 16) : formatIso(t.created_at)}</td>
                    <td className="num">{formatDuration(duration(t))}</td>
                    <td className="num" data-col="q99">{formatMs(t.q99_ms)}</td>
                    <td className="num" data-col="max_rps">{formatCount(t.max_rps)}</td>
                    <td className="num" data-col="imbalance_rps">{formatCount(t.imbalance_rps)}</td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
      {(query.page > 1 || hasNext) && (
        <nav className="pager" aria-label="Pages">
          <button type="button" disabled={query.page <= 1} onClick={() => apply({ ...query, page: query.page - 1 })}>
            ← Newer
          </button>
          <span>
            Page {query.page} of {pages} · {total} tests
          </span>
          <button type="button" disabled={!hasNext} onClick={() => apply({ ...query, page: query.page + 1 })}>
            Older →
          </button>
        </nav>
      )}
    </main>
  );
}
