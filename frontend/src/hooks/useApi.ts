/**
 * Loads one API answer for a component: `{data, error, loading}`, refetched when `key` changes (the caller
 * puts every input of the request into it) and aborted when the component goes away or the key changes.
 * Data of the previous key stays visible while the next loads, so charts do not blink while the window moves.
 */
import { useEffect, useState } from "react";
import { ApiError } from "../api/client";

export interface ApiState<T> {
  data: T | null;
  error: ApiError | null;
  loading: boolean;
}

export function useApi<T>(key: string | null, load: (signal: AbortSignal) => Promise<T>): ApiState<T> {
  const [state, setState] = useState<ApiState<T>>({ data: null, error: null, loading: key !== null });

  useEffect(() => {
    if (key === null) {
      setState({ data: null, error: null, loading: false });
      return;
    }
    const controller = new AbortController();
    setState((s) => ({ ...s, loading: true }));
    load(controller.signal).then(
      (data) => {
        if (!controller.signal.aborted) setState({ data, error: null, loading: false });
      },
      (e: unknown) => {
        if (controller.signal.aborted) return;
        const error = e instanceof ApiError ? e : new ApiError(0, e instanceof Error ? e.message : String(e));
        setState({ data: null, error, loading: false });
      },
    );
    return () => controller.abort();
    // `load` is a fresh closure every render; `key` names everything it depends on.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [key]);

  return state;
}

/** A counter that ticks every `ms` while `active`; put it into API keys to poll. */
export function useTicker(active: boolean, ms: number): number {
  const [tick, setTick] = useState(0);
  useEffect(() => {
    if (!active) return;
    const id = window.setInterval(() => setTick((t) => t + 1), ms);
    return () => window.clearInterval(id);
  }, [active, ms]);
  return tick;
}
