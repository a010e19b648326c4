/**
 * The online pages' push channel: Server-Sent Events from `/api/v1/tests/<id>/live` (a report) or
 * `/api/v1/live?tests=…` (the list's online rows). Each `second` event carries a test's live figures (its newest
 * stored second, by the server's figure rules); a `status` event says its status changed. The browser's EventSource
 * reconnects by itself and names the last event it saw (Last-Event-ID), so the server resumes without a gap.
 *
 * Polling stays the fallback: `live` is false while the channel is not open (not yet, refused, or a server without
 * the channel, which answers a `fallback` event), and the pages then poll as before.
 */
import { useEffect, useRef, useState } from "react";

export interface LiveFigures {
  ts: number;
  rps: number;
  q95_ms: number | null;
  failed: number;
  error_share: number | null;
  elapsed_s: number;
  planned_s: number | null;
}

export interface LiveSecond {
  test: number;
  first_ts: number;
  last_ts: number;
  status: string;
  live: LiveFigures;
}

export interface LiveStatus {
  test: number;
  status: string;
  stop_requested?: boolean;
}

export interface LiveHandlers {
  onSecond?: (event: LiveSecond, id: number) => void;
  onStatus?: (event: LiveStatus) => void;
}

export interface LiveState {
  /** The channel is open: the page need not poll. */
  live: boolean;
  /** The newest `second` event of each test. */
  seconds: Record<number, LiveSecond>;
}

function parse<T>(data: unknown): T | null {
  try {
    return typeof data === "string" ? (JSON.parse(data) as T) : null;
  } catch {
    return null;
  }
}

/** Listens to `url` (null: not now). The handlers may change between renders without reconnecting. */
export function useLive(url: string | null, handlers: LiveHandlers = {}): LiveState {
  const [state, setState] = useState<LiveState>({ live: false, seconds: {} });
  const latest = useRef(handlers);
  latest.current = handlers;
  useEffect(() => {
    setState({ live: false, seconds: {} });
    if (url === null || typeof EventSource === "undefined") return;
    const source = new EventSource(url, { withCredentials: true });
    let closed = false;
    const stop = () => {
      closed = true;
      source.close();
      setState((s) => ({ ...s, live: false }));
    };
    source.onopen = () => setState((s) => ({ ...s, live: true }));
    source.onerror = () => {
      // CONNECTING: the browser reconnects by itself (and resumes); CLOSED: refused for good, poll instead.
      if (source.readyState === EventSource.CLOSED) stop();
      else setState((s) => ({ ...s, live: false }));
    };
    source.addEventListener("fallback", stop);
    source.addEventListener("second", (e) => {
      const event = parse<LiveSecond>((e as MessageEvent).data);
      if (!event || closed) return;
      setState((s) => ({ live: true, seconds: { ...s.seconds, [event.test]: event } }));
      latest.current.onSecond?.(event, Number((e as MessageEvent).lastEventId));
    });
    source.addEventListener("status", (e) => {
      const event = parse<LiveStatus>((e as MessageEvent).data);
      if (event && !closed) latest.current.onStatus?.(event);
    });
    return () => {
      closed = true;
      source.close();
    };
  }, [url]);
  return state;
}
