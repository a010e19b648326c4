/** Typed calls of the /api/v1/ endpoints used by the pages. */
import { ApiError, getJson, sendJson, type Params } from "./client";
import type { operations } from "./schema";
import type {
  AnalysisAnswer,
  ChartAnswer,
  CompareAnswer,
  ComparePending,
  ConfigAnswer,
  Me,
  MonitoringAnswer,
  Note,
  TestEdit,
  Paginated,
  ReportInfo,
  RetentionJob,
  RetentionJobs,
  StopAnswer,
  StorageAnswer,
  Summary,
  TablesAnswer,
  TestMeta,
  TrendAnswer,
  UploadInfo,
} from "./types";

const API = "/api/v1";

/** The report's chart names, as the schema lists them for /tests/<id>/charts/<name>. */
export type ChartName = operations["v1_tests_charts_retrieve"]["parameters"]["path"]["name"];

/** The list answers DRF's paginated object; a bare array is accepted too. */
export async function listTests(params: Params, signal?: AbortSignal): Promise<Paginated<TestMeta>> {
  const body = await getJson<Paginated<TestMeta> | TestMeta[]>(`${API}/tests/`, params, signal);
  return Array.isArray(body) ? { count: body.length, results: body } : body;
}

export const getTest = (id: number, signal?: AbortSignal) => getJson<TestMeta>(`${API}/tests/${id}/`, [], signal);

export const getReport = (id: number, signal?: AbortSignal) =>
  getJson<ReportInfo>(`${API}/tests/${id}/report`, [], signal);

export const getSummary = (id: number, params: Params, signal?: AbortSignal) =>
  getJson<Summary>(`${API}/tests/${id}/summary`, params, signal);

export const getChart = (id: number, name: ChartName, params: Params, signal?: AbortSignal) =>
  getJson<ChartAnswer>(`${API}/tests/${id}/charts/${name}`, params, signal);

export const getTables = (id: number, params: Params, signal?: AbortSignal) =>
  getJson<TablesAnswer>(`${API}/tests/${id}/tables`, params, signal);

export const getMonitoring = (id: number, params: Params, signal?: AbortSignal) =>
  getJson<MonitoringAnswer>(`${API}/tests/${id}/monitoring`, params, signal);

export const getConfig = (id: number, signal?: AbortSignal) =>
  getJson<ConfigAnswer>(`${API}/tests/${id}/config`, [], signal);

export const getAnalysis = (id: number, signal?: AbortSignal) =>
  getJson<AnalysisAnswer>(`${API}/tests/${id}/analysis`, [], signal);

export const getUploads = (id: number, signal?: AbortSignal) =>
  getJson<UploadInfo[]>(`${API}/tests/${id}/uploads/`, [], signal);

export async function updateTest(id: number, patch: Partial<TestEdit>): Promise<TestMeta> {
  const body = await sendJson<TestMeta>("PATCH", `${API}/tests/${id}/`, patch);
  if (!body) throw new ApiError(500, "the server answered the edit without the test");
  return body;
}

export const deleteTest = (id: number) => sendJson<unknown>("DELETE", `${API}/tests/${id}/`);

/** Asks the tank to stop: 202 {"id", "status": "stopping"}; 409 when the test is no longer online. */
export const stopTest = (id: number) => sendJson<StopAnswer>("POST", `${API}/tests/${id}/stop`);

export const getNotes = (id: number, signal?: AbortSignal) => getJson<Note[]>(`${API}/tests/${id}/notes`, [], signal);

export async function addNote(id: number, ts: number, text: string): Promise<Note> {
  const body = await sendJson<Note>("POST", `${API}/tests/${id}/notes`, { ts, text });
  if (!body) throw new ApiError(500, "the server answered without the note");
  return body;
}

export const deleteNote = (id: number, noteId: number) => sendJson<unknown>("DELETE", `${API}/tests/${id}/notes/${noteId}`);

export const setStar = (id: number, starred: boolean) =>
  sendJson<unknown>(starred ? "POST" : "DELETE", `${API}/tests/${id}/star`);

/**
 * The comparison; a big one is computed on the `analysis` queue and answered 202 `{"status": "pending"}` until
 * ready, so this asks again after `retry_after_s` until it has the answer (or the page goes away).
 */
export async function getCompare(params: Params, signal?: AbortSignal): Promise<CompareAnswer> {
  const deadline = Date.now() + 10 * 60 * 1000;
  for (;;) {
    const body = await getJson<CompareAnswer | ComparePending>(`${API}/compare`, params, signal);
    if (!("status" in body)) return body;
    if (Date.now() > deadline) throw new ApiError(504, "the comparison is still being computed; reload later");
    await new Promise((resolve) => setTimeout(resolve, Math.max(0.5, body.retry_after_s) * 1000));
    if (signal?.aborted) throw new DOMException("aborted", "AbortError");
  }
}

/** `params` may name the project (`["project", slug]`): a component is a name within a project. */
export const getTrend = (name: string, params: Params, signal?: AbortSignal) =>
  getJson<TrendAnswer>(`${API}/components/${encodeURIComponent(name)}/trend`, params, signal);

export const getMe = (signal?: AbortSignal) => getJson<Me>(`${API}/me`, [], signal);

export const getStorage = (signal?: AbortSignal) => getJson<StorageAnswer>(`${API}/storage`, [], signal);

export const getRetentionJobs = (signal?: AbortSignal) => getJson<RetentionJobs>(`${API}/retention/jobs`, [], signal);

export const startRetentionJob = () => sendJson<RetentionJob>("POST", `${API}/retention/jobs`);
