/**
 * The one way a page loads API answers: TanStack Query, keyed by arrays that start with what the answer belongs
 * to (`["test", id, ...]`, `["component", name, ...]`), so one call refreshes everything of a test or a component
 * (`refreshTest`, `refreshComponent`) instead of threading counters through the props.
 *
 * The answers are fetched by `api/client.ts` as before: the browser's HTTP cache revalidates them with the
 * server's ETag (a 304 costs no figures), so the in-memory cache here only decides when to ask.
 */
import { QueryClient, keepPreviousData, useQuery, type QueryKey } from "@tanstack/react-query";
import { ApiError } from "../api/client";
import { errorText } from "../lib/errorText";

export const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      // An error is shown as it came (a 404 names a missing test): asking again would only delay it.
      retry: false,
      // Running tests poll on their own; a finished test's figures do not change when the window regains focus.
      refetchOnWindowFocus: false,
      // Data of the previous key stays visible while the next loads, so charts do not blink while the window moves.
      placeholderData: keepPreviousData,
    },
  },
});

export const testKey = (id: number, ...rest: unknown[]): QueryKey => ["test", id, ...rest];
/** A component is a name within a project ("" = the server's default project). */
export const componentKey = (project: string, name: string, ...rest: unknown[]): QueryKey => [
  "component",
  project,
  name,
  ...rest,
];

export interface ApiState<T> {
  data: T | null;
  error: ApiError | null;
  /** A request for this key is under way (the first or a refresh). */
  loading: boolean;
  /** `data` is the previous key's answer, shown while this key's loads. */
  stale: boolean;
}

function apiError(e: unknown): ApiError | null {
  if (e === null || e === undefined) return null;
  return e instanceof ApiError ? e : new ApiError(0, errorText(e));
}

/**
 * One answer: `key` names every input of the request (null = do not ask now); `load` gets the signal that
 * aborts it when the key changes or the component goes away. `refetchInterval` polls (ms, or false to stop).
 */
export function useApi<T>(
  key: QueryKey | null,
  load: (signal: AbortSignal) => Promise<T>,
  { refetchInterval }: { refetchInterval?: number | false | ((data: T | undefined) => number | false) } = {},
): ApiState<T> {
  const query = useQuery({
    queryKey: key ?? ["idle"],
    queryFn: ({ signal }) => load(signal),
    enabled: key !== null,
    refetchInterval:
      typeof refetchInterval === "function" ? (q) => refetchInterval(q.state.data as T | undefined) : refetchInterval,
  });
  if (key === null) return { data: null, error: null, loading: false, stale: false };
  return {
    data: (query.data as T | undefined) ?? null,
    error: apiError(query.error),
    loading: query.isFetching,
    stale: query.isPlaceholderData,
  };
}

/** One answer outside a component (an export button): from the cache when it is there and current, else asked. */
export function fetchApi<T>(key: QueryKey, load: (signal: AbortSignal) => Promise<T>): Promise<T> {
  return queryClient.fetchQuery({ queryKey: key, queryFn: ({ signal }) => load(signal) });
}

/** Everything of one test is asked again (the mounted views refetch at once, the others when next shown). */
export function refreshTest(id: number, part?: string): Promise<void> {
  return queryClient.invalidateQueries({ queryKey: part === undefined ? testKey(id) : testKey(id, part) });
}

/**
 * A new second of an online test arrived (its live channel): everything of it is asked again, except what is still
 * being asked: a request slower than a second finishes and shows instead of being cancelled by the next second's.
 */
export function followTest(id: number, part?: string): Promise<void> {
  return queryClient.invalidateQueries(
    { queryKey: part === undefined ? testKey(id) : testKey(id, part) },
    { cancelRefetch: false },
  );
}

export function refreshComponent(project: string, name: string): Promise<void> {
  return queryClient.invalidateQueries({ queryKey: componentKey(project, name) });
}
